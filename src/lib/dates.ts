/** API dates are `YYYY-MM-DD HH:MM:SS` with no zone; GMTdate is documented as GMT (spec §2.1). */
export function parseApiDate(raw: string | null | undefined): number | null {
  if (typeof raw !== 'string') return null
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(raw.trim())
  if (!m) return null
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]))
  return Number.isNaN(ms) ? null : ms
}

const localFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const utcFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
const localDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'full' })
const utcDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeZone: 'UTC' })

export type Zone = 'local' | 'utc'

export function formatDate(ms: number | null, zone: Zone): string {
  if (ms === null) return '—'
  return zone === 'utc' ? `${utcFmt.format(ms)} UTC` : localFmt.format(ms)
}

export function formatDay(ms: number, zone: Zone): string {
  return zone === 'utc' ? utcDay.format(ms) : localDay.format(ms)
}

/** The exact value, for hover: `2026-11-20 12:00:00 UTC`. */
export function exactUtc(ms: number | null): string {
  return ms === null ? '' : `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}
