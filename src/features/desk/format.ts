/** "3 days 2 h", "2 h 5 min", "20 min", "under a minute": how long someone has waited, at a glance. */
export function formatWait(ms: number): string {
  if (!Number.isFinite(ms) || ms < 60_000) return 'under a minute'
  const min = Math.floor(ms / 60_000)
  const days = Math.floor(min / 1440)
  const hours = Math.floor((min % 1440) / 60)
  const mins = min % 60
  if (days > 0) return `${days} ${days === 1 ? 'day' : 'days'}${hours ? ` ${hours} h` : ''}`
  if (hours > 0) return `${hours} h${mins ? ` ${mins} min` : ''}`
  return `${mins} min`
}

/** A threshold typed by an admin: whole minutes, 0 to a year; the error names the field. */
export function parseThreshold(text: string): { minutes: number } | { error: string } {
  const t = text.trim()
  const max = 60 * 24 * 365
  if (!/^\d{1,6}$/.test(t) || Number(t) > max) return { error: `Threshold (minutes) must be a whole number of minutes from 0 to ${max}.` }
  return { minutes: Number(t) }
}

/** Opt-out history states in words. */
export function optStateWords(state: string): string {
  return state === 'opt-out' ? 'Opted out' : state === 'opt-in' ? 'Opted back in' : state
}

/** An ISO instant from the desk's answers as milliseconds, for the date formatters (null stays null). */
export const msOf = (iso: string | null): number | null => (iso ? Date.parse(iso) : null)
