/**
 * The rate of a growing counter over a recent window, sampled on a timer.
 *
 * The syncer counts the messages this server has stored since it started. That count divided
 * by the time since the first sync is the right rate only while the first run lasts: after an
 * idle hour a new sync would report a fraction of its real speed, and the time left would be
 * hours too long. A window of recent samples follows what the syncs do now.
 */
export interface RateMeter {
  /** Messages counted within the window and the window's start (ms since the epoch), for overallProgress. */
  window: (now?: number) => { messages: number; since: number | null }
  /** Takes a sample now (the timer does this every `everyMs`). */
  sample: (now?: number) => void
  close: () => void
}

export function createRateMeter(
  read: () => number,
  { windowMs = 30_000, everyMs = 1_000, timer = true, clock = Date.now } = {},
): RateMeter {
  const samples: Array<{ at: number; count: number }> = []
  const sample = (now = clock()) => {
    samples.push({ at: now, count: read() })
    while (samples.length > 1 && samples[0]!.at < now - windowMs) samples.shift()
  }
  sample()
  const handle = timer ? setInterval(() => sample(), everyMs) : null
  handle?.unref()
  return {
    sample,
    window: (now = clock()) => {
      sample(now)
      const first = samples[0]!
      const messages = read() - first.count
      // No messages stored within the window: there is no rate to speak of (stalled, or idle).
      return messages > 0 ? { messages, since: first.at } : { messages: 0, since: null }
    },
    close: () => {
      if (handle) clearInterval(handle)
    },
  }
}
