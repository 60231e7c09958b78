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

/** Opt-out history states in words: the server's states are contract/desk/opt-out-ledger.ts's. */
export function optStateWords(state: string): string {
  return state === 'opted-out' ? 'Opted out' : state === 'opted-in' ? 'Opted back in' : state
}

/** An ISO instant from the desk's answers as milliseconds, for the date formatters (null stays null). */
export const msOf = (iso: string | null): number | null => (iso ? Date.parse(iso) : null)

const DAY_MS = 86_400_000

/**
 * Every day from the first to the last with a quiet-hour send, the days without one as null, so the
 * bars stand evenly on the time axis and a quiet stretch shows as a gap. Each x is the customer's
 * day written as that date's UTC midnight, in seconds (what the chart's axis reads back).
 */
export function quietDaySeries(days: ReadonlyArray<{ day: string; quiet: number }>): { x: number[]; quiet: Array<number | null> } {
  const by = new Map(days.map((d) => [Date.parse(`${d.day}T00:00:00Z`), d.quiet]))
  const keys = [...by.keys()].filter((k) => !Number.isNaN(k))
  if (keys.length === 0) return { x: [], quiet: [] }
  const x: number[] = []
  const quiet: Array<number | null> = []
  for (let ms = Math.min(...keys), last = Math.max(...keys); ms <= last; ms += DAY_MS) {
    x.push(ms / 1000)
    // A day with none draws no bar (not a hairline at 0); it still holds its place on the axis.
    quiet.push(by.get(ms) || null)
  }
  return { x, quiet }
}

/** The chart's days as the table below it lists them: every day of the series, one without a send as 0. */
export function quietDayRows(series: { x: readonly number[]; quiet: ReadonlyArray<number | null> }): Array<{ day: string; quiet: number }> {
  return series.x.map((s, i) => ({ day: new Date(s * 1000).toISOString().slice(0, 10), quiet: series.quiet[i] ?? 0 }))
}

/**
 * Who did something, as a person reads it: "you" for the one signed in (and for the one user of a
 * server without sign-in, whose stored name is "local"), else the name as stored.
 */
export function whoDid(name: string | null | undefined, me: string | null | undefined): string {
  if (!name) return 'someone'
  return name === me || name === 'local' ? 'you' : name
}
