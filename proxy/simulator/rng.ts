/** Deterministic helpers: the dataset is a pure function of its seeds, so every run sees the same data. */

/** 32-bit FNV-1a string hash. */
export function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** Integer mixer (splitmix-like): a well-spread value from two integers, no state. */
export function mix(a: number, b: number): number {
  let x = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35)) >>> 0
  x ^= x >>> 16
  x = Math.imul(x, 0x7feb352d)
  x ^= x >>> 15
  x = Math.imul(x, 0x846ca68b)
  x ^= x >>> 16
  return x >>> 0
}

/** A small seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function hex32(seed: number, salt: number): string {
  let out = ''
  for (let i = 0; i < 4; i++)
    out += mix(seed, salt * 4 + i)
      .toString(16)
      .padStart(8, '0')
  return out
}

const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ'
export function alphaTid(seed: number): string {
  const r = rng(seed)
  let s = ''
  for (let i = 0; i < 7; i++) s += LETTERS[Math.floor(r() * LETTERS.length)]
  for (let i = 0; i < 5; i++) s += String(Math.floor(r() * 10))
  return s
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the API's date format. */
export function apiDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
}
