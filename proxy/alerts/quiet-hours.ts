/**
 * A channel's quiet hours: the local hours [start, end) in its zone (start > end spans midnight).
 * A non-urgent notice decided inside them waits in the outbox (run_at) until they end.
 */

const hourIn = (ms: number, zone: string) => {
  const h = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone: zone }).format(ms)
  return Number(h)
}

export function isQuiet(ms: number, start: number | null, end: number | null, zone: string): boolean {
  if (start === null || end === null || start === end) return false
  const h = hourIn(ms, zone)
  return start < end ? h >= start && h < end : h >= start || h < end
}

/** When a notice decided at `ms` may go: `ms` itself outside quiet hours, else the first quarter hour after they end. */
export function releaseAt(ms: number, start: number | null, end: number | null, zone: string): number {
  if (!isQuiet(ms, start, end, zone)) return ms
  let t = Math.ceil(ms / 900_000) * 900_000
  for (let i = 0; i < 24 * 4 + 1 && isQuiet(t, start, end, zone); i++) t += 900_000
  return t
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone })
    return true
  } catch {
    return false
  }
}
