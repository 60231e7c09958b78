import { encodingCost } from './encoding-cost.ts'
import { classifyOptOut, type OptKind } from './opt-out.ts'
import { zoneOf } from './area-codes.ts'
import { DEFAULT_WINDOW, offsetMinutes, wholeDayOffset } from './quiet-hours.ts'

/**
 * What the desk's rules say about each message on its own (direction class, opt-out keyword,
 * encoding and segments, quiet hour), and a batch's per-thread and per-day counts of them. Pure
 * and free of the database, because the index's sync computes them beside each batch it stores,
 * on its page worker's thread too, and writes them with the rows; the desk (proxy/desk) keeps the
 * tables they feed.
 */

/** A message as the desk's per-message rules read it. */
export type DeskSource = {
  party: string
  /** A date, its ISO text, or its milliseconds since the epoch (the sync parses each date once). */
  date: Date | string | number
  direction: string | null
  body: string | null
}

/** What the desk rules say about one message on its own: index_messages' desk_* columns. */
export interface DeskFacts {
  /** true inbound, false outbound, null any other direction. */
  inbound: boolean | null
  opt: Exclude<OptKind, 'none'> | null
  segments: number
  /** The characters that forced UCS-2; null for GSM-7. */
  forcing: string[] | null
  /** Segments the forcing characters added; null when none. */
  extra: number | null
  /** Outbound to a party whose zone is known: the recipient's local day (YYYY-MM-DD) and whether it was a quiet hour. */
  localDay: string | null
  quiet: boolean | null
}

/**
 * The local day a message's row keeps (desk_local_day): a quiet send's only. The quiet-hours list
 * and its per-day counts read it for quiet sends and nothing reads it for others (desk_quiet_days
 * counts every send by local day from the facts themselves). Each one kept is a date the sync's
 * COPY parses: for every outbound row, those dates made the desk's columns cost the million's COPY
 * about 1.7 s (19 %) more than without the desk.
 */
export const storedLocalDay = (f: DeskFacts): string | null => (f.quiet ? f.localDay : null)

function directionOf(raw: string | null): boolean | null {
  const d = raw?.trim().toLowerCase()
  return d === 'inbound' ? true : d === 'outbound' ? false : null
}

/** A body's facts, and the facts objects made from them (shared by the messages they describe: never changed). */
type BodyFacts = {
  cost: ReturnType<typeof encodingCost>
  forcing: string[] | null
  opt: OptKind | null
  /** By direction class when no local time applies (inbound, other, outbound to an unknown zone). */
  plain: Map<boolean | null, DeskFacts>
  /** Outbound with a local time: by local day, then quiet. */
  sends: Map<string, [DeskFacts | null, DeskFacts | null]>
}

/** A zone's whole-day offsets by UTC day (wholeDayOffset), kept for one deskFacts. */
type ZoneDays = { zone: string; days: Map<number, number | null> }

/**
 * Computes messages' facts; one per batch (or chunk). Everything a message's facts depend on
 * repeats across a batch: bodies (templates, auto-replies; classifying a body is most of the
 * work), direction words, parties and their zones, days and their offsets. Each is worked out
 * once here and looked up per message, so a million-message sync spends its time storing.
 */
export function deskFacts(): (m: DeskSource) => DeskFacts {
  const memo = new Map<string, BodyFacts>()
  const directions = new Map<string | null, boolean | null>()
  const zones = new Map<string, ZoneDays | null>()
  const zoneDays = new Map<string, ZoneDays>()
  const dayNames = new Map<number, string>()
  /** localTime's arithmetic (quiet-hours.ts) with the look-ups above. */
  const local = (party: string, date: Date | string | number): { day: string; hour: number } | null => {
    let z = zones.get(party)
    if (z === undefined) {
      const zone = zoneOf(party)
      if (zone === null) z = null
      else if (!(z = zoneDays.get(zone))) zoneDays.set(zone, (z = { zone, days: new Map() }))
      zones.set(party, z)
    }
    if (z === null) return null
    const ms = toMs(date)
    if (!Number.isFinite(ms)) throw new RangeError(`date: not a valid date: ${String(date)}`)
    const utcDay = Math.floor(ms / 86_400_000)
    let whole = z.days.get(utcDay)
    if (whole === undefined) z.days.set(utcDay, (whole = wholeDayOffset(z.zone, utcDay)))
    const at = ms + (whole ?? offsetMinutes(z.zone, ms)) * 60_000
    const dayIndex = Math.floor(at / 86_400_000)
    let day = dayNames.get(dayIndex)
    if (day === undefined) dayNames.set(dayIndex, (day = new Date(dayIndex * 86_400_000).toISOString().slice(0, 10)))
    return { day, hour: Math.floor((at - dayIndex * 86_400_000) / 3_600_000) }
  }
  const make = (b: BodyFacts, inbound: boolean | null, lt: { day: string; hour: number } | null): DeskFacts => {
    // An inbound message's body is classified before its facts are made (b.opt is set).
    const opt = inbound === true ? (b.opt ?? 'none') : 'none'
    return {
      inbound,
      opt: opt === 'none' ? null : opt,
      segments: b.cost.segments,
      forcing: b.forcing,
      extra: b.cost.extraSegments === 0 ? null : b.cost.extraSegments,
      localDay: lt?.day ?? null,
      quiet: lt ? lt.hour < DEFAULT_WINDOW.start || lt.hour >= DEFAULT_WINDOW.end : null,
    }
  }
  return (m) => {
    let inbound = directions.get(m.direction)
    if (inbound === undefined) directions.set(m.direction, (inbound = directionOf(m.direction)))
    const body = m.body ?? ''
    let b = memo.get(body)
    if (!b) {
      const cost = encodingCost(body)
      const forcing = cost.forcedBy.length > 0 ? cost.forcedBy.map((c) => c.char) : null
      memo.set(body, (b = { cost, forcing, opt: null, plain: new Map(), sends: new Map() }))
    }
    if (inbound === true && b.opt === null) b.opt = classifyOptOut(body).kind
    const lt = inbound === false ? local(m.party, m.date) : null
    if (!lt) {
      let f = b.plain.get(inbound)
      if (!f) b.plain.set(inbound, (f = make(b, inbound, null)))
      return f
    }
    let pair = b.sends.get(lt.day)
    if (!pair) b.sends.set(lt.day, (pair = [null, null]))
    const k = lt.hour < DEFAULT_WINDOW.start || lt.hour >= DEFAULT_WINDOW.end ? 1 : 0
    return (pair[k] ??= make(b, false, lt))
  }
}

/** A message just stored with its facts (index_messages' desk_* columns). */
export type DeskStored = { ordinal: number; party: string; date: Date | string | number; failed: boolean; facts: DeskFacts | null }

const toMs = (date: Date | string | number) =>
  typeof date === 'number' ? date : typeof date === 'string' ? Date.parse(date) : date.getTime()

/** Per party: first and last date (ms), inbound, outbound, failed outbound (failed sends). */
type PartyCounts = [number, number, number, number, number]

/** The desk's MARK_DIRTY and BATCH_COUNTS parameters after the number ($2 on; proxy/desk/refresh.ts), worked out from a batch's rows alone. */
export interface DeskCounts {
  dirty: [parties: string[], since: Date[]]
  counts: unknown[]
}

/** storeDeskFacts' arithmetic (proxy/desk/refresh.ts), no database (a sync's page worker runs it too); null when no row has facts. */
export function deskCounts(rows: readonly DeskStored[]): DeskCounts | null {
  const counts = new Map<string, PartyCounts>()
  const quiet = new QuietDays()
  const segments = new SegmentDays()
  const opts: [string[], Date[], number[], string[]] = [[], [], [], []]
  for (const r of rows) {
    const f = r.facts
    if (!f) continue
    const ms = toMs(r.date)
    if (f.opt !== null) {
      opts[0].push(r.party)
      opts[1].push(new Date(ms))
      opts[2].push(r.ordinal)
      opts[3].push(f.opt)
    }
    segments.count(ms, f)
    let c = counts.get(r.party)
    if (!c) counts.set(r.party, (c = [ms, ms, 0, 0, 0]))
    if (ms < c[0]) c[0] = ms
    if (ms > c[1]) c[1] = ms
    if (f.inbound === true) c[2]++
    else if (f.inbound === false) {
      c[3]++
      quiet.count(ms, f.localDay, f.quiet)
      // Failed sends: an inbound message with an error status is none of ours (it counted, and the
      // customer page's "Failed sends" showed 56 where 28 had failed).
      if (r.failed) c[4]++
    }
  }
  if (counts.size === 0) return null
  // One lock order with flushDesk (desk_dirty, then desk_threads by party), so the two never deadlock.
  const e = [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const parties = e.map(([p]) => p)
  const first = e.map(([, c]) => new Date(c[0]))
  // Only additions here, so no day can be left empty (applyQuiet's delete is not needed).
  const q = quiet.columns()
  const sg = segments.columns()
  return {
    dirty: [parties, first],
    counts: [
      parties,
      first,
      e.map(([, c]) => new Date(c[1])),
      e.map(([, c]) => c[2]),
      e.map(([, c]) => c[3]),
      e.map(([, c]) => c[4]),
      q.day,
      q.localDay,
      q.outbound,
      q.unknown,
      q.quiet,
      sg.day,
      sg.messages,
      sg.segments,
      sg.ucs2,
      sg.extra,
      ...opts,
    ],
  }
}

/**
 * A batch's messages per UTC day (desk_segment_days' counts: messages, segments, UCS-2 messages,
 * segments UCS-2 added), as desk_messages reads them from the same facts: UCS-2 when characters
 * forced it, extra 0 when none.
 */
class SegmentDays {
  private readonly byDay = new Map<number, [number, number, number, number]>()
  count(ms: number, f: DeskFacts): void {
    const day = Math.floor(ms / 86_400_000)
    let c = this.byDay.get(day)
    if (!c) this.byDay.set(day, (c = [0, 0, 0, 0]))
    c[0]++
    c[1] += f.segments
    if (f.forcing) c[2]++
    c[3] += f.extra ?? 0
  }
  columns() {
    const out = { day: [] as string[], messages: [] as number[], segments: [] as number[], ucs2: [] as number[], extra: [] as number[] }
    for (const [day, c] of this.byDay) {
      out.day.push(new Date(day * 86_400_000).toISOString().slice(0, 10))
      out.messages.push(c[0])
      out.segments.push(c[1])
      out.ucs2.push(c[2])
      out.extra.push(c[3])
    }
    return out
  }
}

/**
 * A batch's sends per UTC day and recipient-local day (desk_quiet_days' counts: outbound, unknown
 * zone, quiet). Keyed by the UTC day's number and then the local day, so a send costs two map
 * look-ups and no string is made for it.
 */
class QuietDays {
  private readonly byDay = new Map<number, Map<string | null, [number, number, number]>>()
  count(ms: number, localDay: string | null, quiet: boolean | null): void {
    const day = Math.floor(ms / 86_400_000)
    let locals = this.byDay.get(day)
    if (!locals) this.byDay.set(day, (locals = new Map<string | null, [number, number, number]>()))
    let c = locals.get(localDay)
    if (!c) locals.set(localDay, (c = [0, 0, 0]))
    c[0]++
    if (quiet === null) c[1]++
    else if (quiet) c[2]++
  }
  /** One array per column; a send without a local day counts under its UTC day (one row per pair of days). */
  columns() {
    const out = { day: [] as string[], localDay: [] as string[], outbound: [] as number[], unknown: [] as number[], quiet: [] as number[] }
    for (const [day, locals] of this.byDay) {
      const name = new Date(day * 86_400_000).toISOString().slice(0, 10)
      const none = locals.get(null)
      if (none) {
        locals.delete(null)
        const same = locals.get(name)
        if (same) {
          same[0] += none[0]
          same[1] += none[1]
          same[2] += none[2]
        } else locals.set(name, none)
      }
      for (const [localDay, c] of locals) {
        out.day.push(name)
        out.localDay.push(localDay ?? name)
        out.outbound.push(c[0])
        out.unknown.push(c[1])
        out.quiet.push(c[2])
      }
    }
    return out
  }
}
