/**
 * The server's one pace for the upstream: requests spaced 1/rate apart (SYNC_RATE) across every
 * sync and every listing the callback watch makes. Resolves false when stopped while waiting.
 * rooms.ts makes one and hands it to both rooms, so that together they keep to the rate.
 */
export type Pace = (signal: AbortSignal) => Promise<boolean>

export function createLimiter(rate: number): Pace {
  let next = 0
  return async (signal) => {
    if (rate <= 0) return !signal.aborted
    const now = Date.now()
    const at = Math.max(now, next)
    next = at + 1000 / rate
    return at > now ? sleep(at - now, signal) : !signal.aborted
  }
}

/** Waits `ms`; resolves false at once when the signal aborts (the caller stops, nothing throws). */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false)
    const onAbort = () => {
      clearTimeout(t)
      resolve(false)
    }
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
