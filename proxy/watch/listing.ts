import type { Change, ListedEntry, NumberState } from './types.ts'

/**
 * One reading of an allownednumbers answer (spec §2.2, §4.2) for the watch: number as bare
 * digits, tid opaque, type, webhook and dlr as listed (an absent or null one is ''). Entries
 * without a number and a tid are skipped, never guessed (contract/owned-numbers.ts does the same).
 */

const DIGITS = /^\d{6,15}$/
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : '')

/** The entries of a listing answer, or null when the answer is not a listing (no `data` array). */
export function readListing(json: unknown): ListedEntry[] | null {
  const data = json && typeof json === 'object' ? (json as { data?: unknown }).data : undefined
  if (!Array.isArray(data)) return null
  const out: ListedEntry[] = []
  for (const item of data) {
    if (!item || typeof item !== 'object') continue
    const r = item as Record<string, unknown>
    const number = text(r.number).replace(/\D/g, '')
    const tid = text(r.tid)
    if (!DIGITS.test(number) || tid === '') continue
    out.push({ number, tid, type: text(r.type), webhook: text(r.webhook), dlr: text(r.dlr) })
  }
  return out
}

/**
 * The listing as one state per number. A number listed twice keeps the values of its last entry
 * (the upstream answers a history only under the last listed tid: field notes, simulator's large
 * account) and every tid, in listing order.
 */
export function toStates(entries: readonly ListedEntry[]): Map<string, NumberState> {
  const out = new Map<string, NumberState>()
  for (const e of entries) {
    const had = out.get(e.number)
    const tids = had ? (had.tids.includes(e.tid) ? had.tids : [...had.tids, e.tid]) : [e.tid]
    out.set(e.number, { number: e.number, tid: e.tid, tids, type: e.type, webhook: e.webhook, dlr: e.dlr })
  }
  return out
}

/** What changed from `before` to `after`, number by number, in a stable order. */
export function diffStates(before: ReadonlyMap<string, NumberState>, after: ReadonlyMap<string, NumberState>): Change[] {
  const changes: Change[] = []
  for (const [number, a] of after) {
    const b = before.get(number)
    if (!b) {
      changes.push({ number, kind: 'added', from: null, to: a.tid })
      if (a.tids.length > 1) changes.push({ number, kind: 'listed-twice', from: null, to: a.tids.join(' ') })
      continue
    }
    for (const k of ['webhook', 'dlr', 'tid', 'type'] as const) if (a[k] !== b[k]) changes.push({ number, kind: k, from: b[k], to: a[k] })
    const bt = b.tids.join(' ')
    const at = a.tids.join(' ')
    if (a.tids.length > 1 && bt !== at) changes.push({ number, kind: 'listed-twice', from: bt, to: at })
    else if (a.tids.length === 1 && b.tids.length > 1) changes.push({ number, kind: 'listed-once', from: bt, to: at })
  }
  for (const [number, b] of before) if (!after.has(number)) changes.push({ number, kind: 'removed', from: b.tid, to: null })
  return changes
}
