/**
 * What real accounts do that the seeded dataset does not, switched on by tests through the
 * control door (POST /__sim/quirks; DELETE clears them). All off by default.
 */

/** How the upstream words its refusal of a number the account no longer holds. */
export const REMOVAL_WORDINGS = {
  unknown: 'Unknown number or tid',
  not_found: 'Number not found on this account',
  inactive: 'This number is no longer active',
} as const
export type RemovalWording = keyof typeof REMOVAL_WORDINGS

export interface Quirks {
  /** Messages that arrive on a number before each history request of it is answered (1–50). */
  arrivals: Map<string, number>
  /** Every fifth message is dated three steps and 100 s earlier than its place says (a skewed clock). */
  skewedClock: boolean
  /**
   * Numbers listed twice: an extra tid, listed first, that the history refuses (as the large
   * account's colliding numbers do: only the last listed tid answers).
   */
  listedTwice: Set<string>
  /**
   * Numbers listed twice whose second tid serves a history of its own (TWIN_SIZE messages): the
   * account holds two lines under one number, and a history asked under either tid answers.
   * The second tid is listed after the number's own.
   */
  twoHistories: Set<string>
  /** Numbers that left the account: not listed, and their history refused in `wording`. */
  removed: Set<string>
  /**
   * Numbers the listing leaves out while their history is still served (an upstream whose listing
   * lags its account, or that serves a number the account let go).
   */
  unlisted: Set<string>
  wording: RemovalWording
  /**
   * Numbers whose history's total counts this many more messages than it serves (deleted ones,
   * say: the oldest positions come back empty), or, below 0, fewer (the oldest records are served
   * past the total).
   */
  overstated: Map<string, number>
  /**
   * Numbers whose history requests are held before they are answered, by turns of 30, 0, 20 and
   * 10 ms (times `scale`): requests sent together (pages asked for ahead) are answered in another
   * order, each with the history and total of its own moment (with arrivals, a page asked for
   * later can carry a smaller total than one asked for before it).
   */
  reorder: Map<string, { scale: number; served: number }>
  /**
   * Numbers whose callbacks the account owner changed: the listing shows these webhook and dlr
   * values instead of the dataset's (the callback watch's tests change them between listings).
   */
  callbacks: Map<string, { webhook?: string; dlr?: string }>
}

/** The hold of a reordered number's next answer, in ms (see Quirks.reorder). */
export function reorderDelay(q: Quirks, number: string): number {
  const r = q.reorder.get(number)
  if (!r) return 0
  return [30, 0, 20, 10][r.served++ % 4]! * r.scale
}

export const noQuirks = (): Quirks => ({
  arrivals: new Map(),
  skewedClock: false,
  listedTwice: new Set(),
  twoHistories: new Set(),
  removed: new Set(),
  unlisted: new Set(),
  wording: 'unknown',
  overstated: new Map(),
  reorder: new Map(),
  callbacks: new Map(),
})

/** The extra tid a number listed twice carries. */
export const extraTid = (number: string) => `X${number.slice(-8)}DUP`

/** How many messages the second tid of a number with two histories serves (before arrivals). */
export const TWIN_SIZE = 700

const NUMBER = /^\d{6,15}$/
const MAX_NUMBERS = 100

/** Applies a control request's quirks on top of the current ones; a string saying what is wrong otherwise. */
export function applyQuirks(q: Quirks, input: Record<string, unknown>): string | undefined {
  const known = new Set([
    'arrivals',
    'skewedClock',
    'listedTwice',
    'twoHistories',
    'removed',
    'unlisted',
    'wording',
    'overstated',
    'reorder',
    'callbacks',
  ])
  for (const k of Object.keys(input)) if (!known.has(k)) return `unknown quirk ${k}; use ${[...known].join(', ')}`
  if (input.arrivals !== undefined) {
    const a = input.arrivals as { number?: unknown; perRequest?: unknown }
    if (!a || typeof a !== 'object' || typeof a.number !== 'string' || !NUMBER.test(a.number)) return 'arrivals.number must be digits'
    const n = a.perRequest
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 50) return 'arrivals.perRequest must be a whole number from 0 to 50'
    if (n === 0) q.arrivals.delete(a.number)
    else q.arrivals.set(a.number, n)
  }
  if (input.overstated !== undefined) {
    const o = input.overstated as { number?: unknown; by?: unknown }
    if (!o || typeof o !== 'object' || typeof o.number !== 'string' || !NUMBER.test(o.number)) return 'overstated.number must be digits'
    const n = o.by
    if (typeof n !== 'number' || !Number.isInteger(n) || n < -1000 || n > 1000)
      return 'overstated.by must be a whole number from -1000 to 1000'
    if (n === 0) q.overstated.delete(o.number)
    else q.overstated.set(o.number, n)
  }
  if (input.reorder !== undefined) {
    const r = input.reorder as { number?: unknown; scale?: unknown }
    if (!r || typeof r !== 'object' || typeof r.number !== 'string' || !NUMBER.test(r.number)) return 'reorder.number must be digits'
    const n = r.scale
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 100) return 'reorder.scale must be a whole number from 0 to 100'
    if (n === 0) q.reorder.delete(r.number)
    else q.reorder.set(r.number, { scale: n, served: 0 })
  }
  if (input.callbacks !== undefined) {
    // { number, webhook?, dlr? }: a value replaces the dataset's; null puts the dataset's back.
    const c = input.callbacks as { number?: unknown; webhook?: unknown; dlr?: unknown }
    if (!c || typeof c !== 'object' || typeof c.number !== 'string' || !NUMBER.test(c.number)) return 'callbacks.number must be digits'
    const next = { ...q.callbacks.get(c.number) }
    for (const k of ['webhook', 'dlr'] as const) {
      const v = c[k]
      if (v === undefined) continue
      if (v === null) delete next[k]
      else if (typeof v !== 'string' || v.length > 2000) return `callbacks.${k} must be text of at most 2000 characters, or null`
      else next[k] = v
    }
    if (Object.keys(next).length === 0) q.callbacks.delete(c.number)
    else if (!q.callbacks.has(c.number) && q.callbacks.size >= MAX_NUMBERS)
      return `callbacks may be changed on at most ${MAX_NUMBERS} numbers`
    else q.callbacks.set(c.number, next)
  }
  if (input.skewedClock !== undefined) {
    if (typeof input.skewedClock !== 'boolean') return 'skewedClock must be true or false'
    q.skewedClock = input.skewedClock
  }
  for (const key of ['listedTwice', 'twoHistories', 'removed', 'unlisted'] as const) {
    const v = input[key]
    if (v === undefined) continue
    if (!Array.isArray(v) || v.length > MAX_NUMBERS || !v.every((x) => typeof x === 'string' && NUMBER.test(x)))
      return `${key} must be a list of at most ${MAX_NUMBERS} numbers (digits)`
    q[key] = new Set(v as string[])
  }
  if (input.wording !== undefined) {
    if (typeof input.wording !== 'string' || !Object.hasOwn(REMOVAL_WORDINGS, input.wording))
      return `wording must be one of ${Object.keys(REMOVAL_WORDINGS).join(', ')}`
    q.wording = input.wording as RemovalWording
  }
  return undefined
}

/** Whether any quirk changes the account listing (then it is built per request, not cached). */
export const changesListing = (q: Quirks) =>
  q.listedTwice.size > 0 || q.twoHistories.size > 0 || q.removed.size > 0 || q.unlisted.size > 0 || q.callbacks.size > 0
