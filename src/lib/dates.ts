import { isRealDay, upstreamDateMs } from '../../contract/upstream-values'

/** An upstream date (spec §2.1) as milliseconds, read exactly as the server reads it (contract/upstream-values.ts). */
export function parseApiDate(raw: string | null | undefined): number | null {
  return upstreamDateMs(raw)
}

/**
 * Each formatter is built on first use, not when this module loads: building an
 * Intl.DateTimeFormat with a date or time style costs ICU work (~35 ms for these four on a
 * phone-speed CPU), which delayed a history page's first paint before any date was shown.
 */
function once<T>(make: () => T): () => T {
  let v: T | undefined
  return () => (v ??= make())
}
const localFmt = once(() => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }))
const utcFmt = once(() => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }))
const localDay = once(() => new Intl.DateTimeFormat(undefined, { dateStyle: 'full' }))
const utcDay = once(() => new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeZone: 'UTC' }))
/** The browser's IANA zone ('' when it does not say), read once: pages name it in every render. */
const browserZone = once(() => Intl.DateTimeFormat().resolvedOptions().timeZone || '')

export type Zone = 'local' | 'utc'

export function formatDate(ms: number | null, zone: Zone): string {
  if (ms === null) return '—'
  return zone === 'utc' ? `${utcFmt().format(ms)} UTC` : localFmt().format(ms)
}

export function formatDay(ms: number, zone: Zone): string {
  return zone === 'utc' ? utcDay().format(ms) : localDay().format(ms)
}

/** The exact value, for hover: `2026-11-20 12:00:00 UTC`. */
export function exactUtc(ms: number | null): string {
  return ms === null ? '' : `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

/** The zone the page shows, named: "Local time (Europe/Paris)" or "UTC". */
export function zoneLabel(zone: Zone): string {
  if (zone === 'utc') return 'UTC'
  const name = browserZone()
  return name ? `Local time (${name})` : 'Local time'
}

/** The IANA name of the zone shown (for the server's export `tz`). */
export function zoneName(zone: Zone): string {
  return zone === 'utc' ? 'UTC' : browserZone() || 'UTC'
}

/** ISO 8601 in UTC with the Z: what every export writes, unambiguous. */
export function isoUtc(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** The same instant in the shown zone with its offset: `2026-11-21T13:04:00+01:00`. */
export function isoInZone(ms: number | null, zone: Zone): string {
  if (ms === null) return ''
  if (zone === 'utc') return isoUtc(ms)
  const d = new Date(ms)
  const off = -d.getTimezoneOffset()
  const sign = off >= 0 ? '+' : '-'
  const abs = Math.abs(off)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}${sign}${p(Math.floor(abs / 60))}:${p(abs % 60)}`
}

/** The first instant after the day `YYYY-MM-DD` in the shown zone (the day's end, exclusive). */
export function endOfDay(day: string, zone: Zone): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!m) return null
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1]
  return zone === 'utc' ? Date.UTC(y, mo, d) : new Date(y, mo, d).getTime()
}

/** The first instant of the day `YYYY-MM-DD` in the shown zone. */
export function startOfDay(day: string, zone: Zone): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!m) return null
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])]
  return zone === 'utc' ? Date.UTC(y, mo, d) : new Date(y, mo, d).getTime()
}

/**
 * A from/to pair of days as the index's instants in the shown zone: `from` is its day's first
 * instant, `to` its day's last millisecond (the index takes either inclusive). UTC days go as they are.
 */
export function dayRangeInZone(from: string, to: string, zone: Zone): { from?: string; to?: string } {
  if (zone === 'utc') return { ...(from ? { from } : {}), ...(to ? { to } : {}) }
  const start = from ? startOfDay(from, zone) : null
  const end = to ? endOfDay(to, zone) : null
  return {
    ...(start !== null ? { from: new Date(start).toISOString() } : {}),
    ...(end !== null ? { to: new Date(end - 1).toISOString() } : {}),
  }
}

/** `YYYY-MM-DD` of an instant in the shown zone. */
export function dayOf(ms: number, zone: Zone): string {
  return (zone === 'utc' ? isoUtc(ms) : isoInZone(ms, zone)).slice(0, 10)
}

/**
 * What is wrong with a From/To pair of whole days (`YYYY-MM-DD`, To included), or null: a To
 * before its From leaves no day to show, so a page says so at the To box and asks nothing.
 */
export function dayOrderProblem(from: string, to: string): string | null {
  return from && to && to < from ? `To (${to}) is before From (${from}): no day is in that range. Change one of them.` : null
}

/**
 * A day a person has finished typing: a real `YYYY-MM-DD` with a four-digit year. A date input
 * reports `0002-11-17` at the first digit of the year, so years below 1000 are typing in progress.
 */
export function isWholeDay(v: string): boolean {
  return /^[1-9]\d{3}-\d{2}-\d{2}$/.test(v) && isRealDay(v)
}
