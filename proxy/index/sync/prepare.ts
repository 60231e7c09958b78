import { deskCounts, deskFacts, type DeskCounts, type DeskFacts } from '../../../contract/desk/facts.ts'
import { copyHead, copyLine, type StoredMessage } from '../columns.ts'
import type { PageMeta, PageRecord } from '../parse.ts'

/**
 * A batch's work that needs no database: each row's date, desk facts and COPY line, and the
 * roll-ups and desk counts of its rows. Pure, so the server's thread (store.ts) and the full
 * walk's page worker (page-worker.ts) run the same code.
 */

/** Which number a batch belongs to, under which tid, and whether it keeps the desk's facts. */
export interface BatchOf {
  number: string
  tid: string
  desk: boolean
}

/** A record and its ordinal (1 = the number's oldest message). */
export interface Placed {
  ordinal: number
  r: PageRecord
}

/** A full walk's checkpoint: every ordinal above `next` is stored; `check` is ordinal next + 1's identity. */
export interface Checkpoint {
  next: number
  total: number
  check: string | null
}

/** The quarter-hour roll-up's slot width: every zone's offset today is a whole number of them. */
const QUARTER_MS = 15 * 60_000

/**
 * A batch made ready before its transaction: each row's date and desk facts (when kept) and, for
 * a COPY, its CSV line up to the body id. Made outside the transaction, so that the transaction
 * holds PGlite's one connection only for the database's own work.
 */
export interface Prepared {
  /** The envelope of the batch's last page (the number's row keeps it). */
  page: PageMeta
  cp: Checkpoint | null
  /** The rows, their body ids still null (the store looks them up inside its transaction). */
  rows: StoredMessage[]
  /** COPY lines (copyLine) when the rows are known to be absent and the engine loads by COPY; else null. */
  lines: string[] | null
}

/**
 * Rows prepared, or sent to PostgreSQL, between two turns of the event loop. A batch is thousands
 * of rows; in one stretch its facts, COPY lines or parameter arrays held the server's thread for
 * tens of milliseconds, and every request waiting on that thread with it. 500 rather than 1,000:
 * a slice of 1,000 took 3 to 4 ms of the thread, and with a young-generation collection landing in
 * it, twice that (docs/performance.md).
 */
export const ROWS_PER_TURN = 500
/**
 * A slice also ends once it has held the thread this long (checked every CHECK_EVERY rows). A
 * batch prepared on the server's thread while the desk's code is still cold (a long history's
 * first page: each party's zone formatter made, the opt-out patterns compiled, nothing optimised
 * yet) took 40–50 ms a slice of 500 under the profiler, a warm one 3–4 ms.
 */
const TURN_MS = 6
const CHECK_EVERY = 50
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** The work of a batch that needs no database (see Prepared), a slice of rows per turn of the event loop. */
export async function prepareBatch(
  of: BatchOf,
  page: PageMeta,
  placed: Placed[],
  cp: Checkpoint | null,
  fresh: boolean,
): Promise<Prepared> {
  const dates = datesOf(page, placed)
  // The desk's facts come from the records alone: computed before the transaction, written with the rows.
  const facts = of.desk ? deskFacts() : null
  const copy = fresh && placed.length > 0
  const head = copy ? copyHead(of.number, of.tid) : ''
  const rows = new Array<StoredMessage>(placed.length)
  const lines = copy ? new Array<string>(placed.length) : null
  // Stored in descending ordinals, as a walk's pages come (migration 700): each row enters the
  // key (number, ordinal DESC) just after the one before it, and the table holds the rows in the
  // order of its (number, date DESC) indexes.
  const order = descending(placed)
  let sliceStart = performance.now()
  let inSlice = 0
  for (let j = 0; j < order.length; j++) {
    if (inSlice > 0 && (inSlice === ROWS_PER_TURN || (inSlice % CHECK_EVERY === 0 && performance.now() - sliceStart > TURN_MS))) {
      await nextTurn()
      sliceStart = performance.now()
      inSlice = 0
    }
    inSlice++
    const i = order[j]!
    const { ordinal, r } = placed[i]!
    const date = dates[i]!
    const ms = Date.parse(date)
    const m: StoredMessage = {
      ordinal,
      r,
      date,
      ms,
      bodyId: null,
      statusId: null,
      desk: facts ? facts({ party: r.partyDigits, date: ms, direction: r.direction, body: r.body }) : null,
    }
    rows[j] = m
    if (lines) lines[j] = copyLine(head, m)
  }
  return { page, cp, rows, lines }
}

/**
 * The places of `placed` in descending ordinals. A walk's batch comes newest first, already in
 * that order (no sort: one with a comparator cost about a tenth of a batch's preparation); one in
 * ascending order is reversed.
 */
function descending(placed: Placed[]): number[] {
  const n = placed.length
  let down = true
  let up = true
  for (let i = 1; i < n && (down || up); i++) {
    const d = placed[i]!.ordinal - placed[i - 1]!.ordinal
    if (d >= 0) down = false
    if (d <= 0) up = false
  }
  if (up) return Array.from({ length: n }, (_, j) => n - 1 - j)
  const order = Array.from({ length: n }, (_, i) => i)
  return down ? order : order.sort((a, b) => placed[b]!.ordinal - placed[a]!.ordinal)
}

/**
 * A batch of rows known to be absent, made ready for COPY with no database: each row's CSV line
 * up to its body id, the batch's distinct bodies (and their desk facts), and every roll-up and
 * desk count, with bodies counted by their place in `bodies` until the transaction knows their
 * ids. A full walk of a large history makes these in its page worker (page-worker.ts), so the
 * server's thread only runs the transaction; the same function makes them on the server's thread
 * otherwise, so both ways store the same rows and counts.
 */
export interface CopyPayload {
  count: number
  /** The highest ordinal among the rows (0 when none). */
  top: number
  /**
   * copyLine of each row, in descending ordinals, as UTF-8 bytes one after another (no separator):
   * row i's line ends at lineEnds[i]. Bytes rather than strings so that the server's thread, which
   * adds each line's ids and hands the whole to COPY, never holds a batch's text on its heap: a
   * million-message sync's strings there grew the old generation until full collections of 60 to
   * 70 ms held every request (a profile of the sync on the server's thread).
   */
  lineBytes: Uint8Array<ArrayBuffer>
  lineEnds: Int32Array<ArrayBuffer>
  /** Each line's body: its index in `bodies`, or -1 for none. */
  lineBody: Int32Array
  bodies: string[]
  /** Each line's status text: its index in `statuses`, or -1 for none. */
  lineStatus: Int32Array
  statuses: string[]
  /** Per body, BODY_IDS_SQL's desk columns (the forcing characters joined by \x1f, the extra segments); null without the desk. */
  bodyForcing: Array<string | null> | null
  bodyExtra: number[] | null
  rollUp: RollUp
  desk: DeskCounts | null
}

/** A prepared batch's COPY payload (see CopyPayload); `prep.lines` must be set. */
export function payloadOf(prep: Prepared, desk: boolean): CopyPayload {
  const { rows } = prep
  const index = new Map<string, number>()
  const bodies: string[] = []
  const firstFacts: Array<DeskFacts | null> = []
  const lineBody = new Int32Array(rows.length)
  const statusIndex = new Map<string, number>()
  const statuses: string[] = []
  const lineStatus = new Int32Array(rows.length)
  let top = 0
  for (let i = 0; i < rows.length; i++) {
    const m = rows[i]!
    if (m.ordinal > top) top = m.ordinal
    const status = m.r.status
    if (status === null) lineStatus[i] = -1
    else {
      let k = statusIndex.get(status)
      if (k === undefined) {
        statusIndex.set(status, (k = statuses.length))
        statuses.push(status)
      }
      lineStatus[i] = k
    }
    const body = m.r.body
    if (body === null) {
      lineBody[i] = -1
      continue
    }
    let k = index.get(body)
    if (k === undefined) {
      index.set(body, (k = bodies.length))
      bodies.push(body)
      firstFacts.push(m.desk)
    }
    lineBody[i] = k
  }
  const withFacts = firstFacts.every((f) => f !== null)
  return {
    count: rows.length,
    top,
    ...lineBytesOf(prep.lines ?? []),
    lineBody,
    bodies,
    lineStatus,
    statuses,
    bodyForcing: withFacts ? firstFacts.map((f) => f?.forcing?.join('\x1f') ?? null) : null,
    bodyExtra: withFacts ? firstFacts.map((f) => f?.extra ?? 0) : null,
    rollUp: rollUpOf(rows, (_, i) => (lineBody[i]! < 0 ? null : lineBody[i]!)),
    desk: desk ? deskCounts(rows.map(deskStored)) : null,
  }
}

const utf8 = new TextEncoder()

/** Lines as one run of UTF-8 bytes and each line's end in it (see CopyPayload). */
export function lineBytesOf(lines: readonly string[]): { lineBytes: Uint8Array<ArrayBuffer>; lineEnds: Int32Array<ArrayBuffer> } {
  let size = 0
  for (const line of lines) size += Buffer.byteLength(line, 'utf8')
  const lineBytes = new Uint8Array(size)
  const lineEnds = new Int32Array(lines.length)
  let at = 0
  for (let i = 0; i < lines.length; i++) {
    at += utf8.encodeInto(lines[i]!, lineBytes.subarray(at)).written
    lineEnds[i] = at
  }
  return { lineBytes, lineEnds }
}

export const deskStored = (m: StoredMessage) => ({
  ordinal: m.ordinal,
  party: m.r.partyDigits,
  date: m.ms,
  failed: m.r.statusCode !== null && m.r.statusCode >= 400,
  facts: m.desk,
})

/** Each row's stored date: its own, or a neighbour's when its GMTdate did not parse (kept raw in date_raw). */
function datesOf(page: PageMeta, placed: Placed[]): string[] {
  let fallback = page.newestAt ?? '1970-01-01T00:00:00Z'
  return placed.map(({ r }) => {
    if (r.date) fallback = r.date
    return r.date ?? fallback
  })
}

/** A roll-up slot's counts: inbound (any direction but 'outbound'), outbound, failed (status 400 and up), outbound failed, with media. */
type Tally = [number, number, number, number, number]

function tally(t: Tally, m: StoredMessage): void {
  const out = m.r.direction === 'outbound'
  const failed = m.r.statusCode !== null && m.r.statusCode >= 400
  t[out ? 1 : 0]++
  if (failed) t[2]++
  if (failed && out) t[3]++
  if (m.r.mms) t[4]++
}

/** The daily, quarter-hour, party and body roll-ups of a batch's rows: each table's keys, then one array per count. */
export interface RollUp {
  days: [string[], ...number[][]]
  slots: [string[], ...number[][]]
  parties: [string[], number[], string[]]
  /** Bodies by the caller's key (a body id, or a place in a payload's `bodies`) and their counts. */
  bodies: [number[], number[]]
}

/** The roll-ups of exactly `rows` (the rows stored), no database; `bodyKey` names each row's body. */
export function rollUpOf(rows: readonly StoredMessage[], bodyKey: (m: StoredMessage, i: number) => number | null): RollUp {
  // Per day and per quarter hour: in, out, failed, outbound failed, with media (sql.ts DAILY_SQL).
  const days = new Map<string, Tally>()
  const slots = new Map<number, Tally>()
  const parties = new Map<string, [number, string]>()
  const bodyCounts = new Map<number, number>()
  for (let i = 0; i < rows.length; i++) {
    const m = rows[i]!
    const body = bodyKey(m, i)
    if (body !== null) bodyCounts.set(body, (bodyCounts.get(body) ?? 0) + 1)
    const day = m.date.slice(0, 10)
    let d = days.get(day)
    if (!d) days.set(day, (d = [0, 0, 0, 0, 0]))
    const slot = Math.floor(m.ms / QUARTER_MS) * QUARTER_MS
    let q = slots.get(slot)
    if (!q) slots.set(slot, (q = [0, 0, 0, 0, 0]))
    tally(d, m)
    tally(q, m)
    const p = parties.get(m.r.partyDigits)
    if (!p) parties.set(m.r.partyDigits, [1, m.date])
    else {
      p[0]++
      if (m.date > p[1]) p[1] = m.date
    }
  }
  const columns = (e: Array<[unknown, Tally]>) => [0, 1, 2, 3, 4].map((k) => e.map(([, v]) => v[k]!))
  const d = [...days.entries()]
  const q = [...slots.entries()]
  const p = [...parties.entries()]
  return {
    days: [d.map(([k]) => k), ...columns(d)],
    slots: [q.map(([k]) => new Date(k).toISOString()), ...columns(q)],
    parties: [p.map(([k]) => k), p.map(([, v]) => v[0]), p.map(([, v]) => v[1])],
    bodies: [[...bodyCounts.keys()], [...bodyCounts.values()]],
  }
}
