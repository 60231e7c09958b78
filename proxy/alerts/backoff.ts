/**
 * When a failed notice is tried again: 5 s, 1 min, 5 min, 30 min, 2 h, then every 6 h until 24 h
 * have passed since it was written; then it is dead (shown as such, never sent). The schedule
 * lives in the row (run_at), not in a sleeping process, so a restart keeps it.
 */

const STEPS_MS = [5_000, 60_000, 300_000, 1_800_000, 7_200_000]
const LATER_MS = 6 * 3_600_000
export const GIVE_UP_MS = 24 * 3_600_000

/** The wait after the `attempts`-th failed attempt (1 = the first). */
export const retryDelayMs = (attempts: number): number => STEPS_MS[attempts - 1] ?? LATER_MS

/** The next attempt's time, or null when the notice is dead (its next try would fall past 24 h). */
export function nextRun(createdAt: number, now: number, attempts: number): number | null {
  const at = now + retryDelayMs(attempts)
  return at - createdAt > GIVE_UP_MS ? null : at
}
