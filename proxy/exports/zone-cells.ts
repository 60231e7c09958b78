import { invalid } from '../errors.ts'

/**
 * Dates as export cells: an instant in UTC and in the reader's IANA zone, made fast enough for a
 * million rows. The index's message export and the desk's report exports both write them.
 */

/** One IANA zone's offset from UTC (ms) at an instant, cached per quarter hour; null for UTC. */
export function zoneOffset(tz: string): ((ms: number) => number) | null {
  let dtf: Intl.DateTimeFormat
  try {
    dtf = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
  } catch {
    throw invalid('tz', 'tz must be an IANA time zone such as Europe/Paris or UTC.')
  }
  if (dtf.resolvedOptions().timeZone === 'UTC') return null
  const offsets = new Map<number, number>()
  /** The offset at the start of one quarter hour, from Intl (about 20 µs a call), remembered. */
  const atQuarter = (key: number): number => {
    let off = offsets.get(key)
    if (off === undefined) {
      const parts = Object.fromEntries(dtf.formatToParts(new Date(key * 900_000)).map((p) => [p.type, p.value]))
      const local = Date.UTC(
        Number(parts.year),
        Number(parts.month) - 1,
        Number(parts.day),
        Number(parts.hour),
        Number(parts.minute),
        Number(parts.second),
      )
      off = local - key * 900_000
      if (offsets.size > 100_000) offsets.clear()
      offsets.set(key, off)
    }
    return off
  }
  // Zone offsets change on quarter hours at the finest, and no zone changes twice within six hours:
  // a six-hour window whose two ends have the same offset has it throughout (two Intl calls per
  // window instead of one per quarter hour: an export of a year of data makes ~3,000, not 35,000).
  // A window with a change in it is read quarter by quarter.
  const WINDOW = 24 // quarter hours
  let window = Number.NaN
  let windowOff: number | null = null
  return (ms: number) => {
    const key = Math.floor(ms / 900_000)
    const w = Math.floor(key / WINDOW)
    if (w !== window) {
      window = w
      const a = atQuarter(w * WINDOW)
      windowOff = a === atQuarter((w + 1) * WINDOW) ? a : null
    }
    return windowOff ?? atQuarter(key)
  }
}

/** A formatter for one IANA zone: `YYYY-MM-DD HH:MM:SS` local time, offsets cached per 15 min. */
export function zoneFormatter(tz: string): (ms: number) => string {
  const offsetAt = zoneOffset(tz)
  return (ms) => new Date(offsetAt ? ms + offsetAt(ms) : ms).toISOString().slice(0, 19).replace('T', ' ')
}

const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'))
const DAY_MS = 86_400_000

/**
 * `2026-11-21T12:04:00Z` and the local `2026-11-21 13:04:00` of each instant, as isoOf and
 * zoneFormatter make them, without a Date per row: the day's text is remembered (an export's
 * rows come in date order) and the time of day is integer arithmetic. Whole seconds in years
 * 1–9999 only (the upstream's dates are); anything else goes the slow way.
 */
export function dateCells(tz: string): (ms: number) => [utc: string, local: string] {
  const offsetAt = zoneOffset(tz)
  const slow = (ms: number): [string, string] => {
    const local = new Date(offsetAt ? ms + offsetAt(ms) : ms).toISOString().slice(0, 19).replace('T', ' ')
    return [`${new Date(ms).toISOString().slice(0, 19)}Z`, local]
  }
  const dayText = () => {
    let last = Number.NaN
    let text = ''
    return (day: number) => {
      if (day !== last) {
        last = day
        text = new Date(day * DAY_MS).toISOString().slice(0, 10)
      }
      return text
    }
  }
  const utcDay = dayText()
  const localDay = dayText()
  const hms = (t: number) => `${TWO[Math.floor(t / 3_600_000)]}:${TWO[Math.floor(t / 60_000) % 60]}:${TWO[Math.floor(t / 1000) % 60]}`
  return (ms) => {
    if (ms % 1000 !== 0 || !(ms > -62_135_596_800_000 && ms < 253_402_300_799_000)) return slow(ms)
    const lms = offsetAt ? ms + offsetAt(ms) : ms
    const d = Math.floor(ms / DAY_MS)
    const ld = Math.floor(lms / DAY_MS)
    const u = utcDay(d)
    const l = localDay(ld)
    if (u[4] !== '-' || l[4] !== '-' || u[0] === '-' || l[0] === '-') return slow(ms)
    return [`${u}T${hms(ms - d * DAY_MS)}Z`, `${l} ${hms(lms - ld * DAY_MS)}`]
  }
}

/** dateCells joined as two CSV cells (`utc,local`): the dates are ours, digits and separators only. */
export function dateCellsCsv(tz: string): (ms: number) => string {
  const both = dateCells(tz)
  const offsetAt = zoneOffset(tz)
  const QUARTER = 900_000
  // Within one UTC quarter hour both hours are fixed when the zone's offset is whole quarter
  // hours (every zone today): the hour texts are remembered per quarter, the minutes and seconds
  // come from the table. Anything else (historic offsets in seconds, fractions) goes through both().
  let quarter = Number.NaN
  let start = 0
  let utcHour = ''
  let localHour = ''
  let utcMinute = 0
  let localMinute = 0
  return (ms) => {
    const q = Math.floor(ms / QUARTER)
    if (q !== quarter) {
      start = q * QUARTER
      const off = offsetAt ? offsetAt(start) : 0
      const [u, l] = both(start)
      if (off % QUARTER !== 0 || u.length !== 20 || l.length !== 19 || u[4] !== '-' || u[13] !== ':' || l[4] !== '-' || l[13] !== ':')
        quarter = Number.NaN
      else {
        quarter = q
        utcHour = u.slice(0, 14)
        localHour = l.slice(0, 14)
        utcMinute = Number(u.slice(14, 16))
        localMinute = Number(l.slice(14, 16))
      }
    }
    if (q !== quarter || ms % 1000 !== 0) {
      const [utc, local] = both(ms)
      return `${utc},${local}`
    }
    // Integers below 900,000 from here: the minute within the quarter and the second.
    const r = ms - start
    const m = (r / 60_000) | 0
    const sec = TWO[((r / 1000) | 0) % 60]!
    return `${utcHour}${TWO[utcMinute + m]}:${sec}Z,${localHour}${TWO[localMinute + m]}:${sec}`
  }
}
