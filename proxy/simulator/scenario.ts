import { GOOD_WEBHOOK, type NumberProfile } from './dataset.ts'
import { mix, rng } from './rng.ts'

/**
 * A demo that breaks on its own, on a schedule, so the callback watch and the alerts have
 * something to find without anyone touching the simulator (opt-in: `scenario` in the simulator's
 * options, SIM_SCENARIO=seed for main.ts). Every PERIOD_MS from the history's end:
 *  - one number's webhook points at a name under `.invalid` (RFC 6761: never resolves) for a
 *    while, then back: two "callback changed" entries in the watch's history, a failing endpoint
 *    between them, and the messages that arrived meanwhile at risk;
 *  - the busiest number's outbound messages are all refused (status 400) for an hour: a failure
 *    spike against its own trailing rate (about 5 % refused), with the volume the rule needs.
 * Where each window falls within the period, and which number breaks, follow from the seed: the
 * same seed and clock give the same listing and the same histories. It needs a live clock
 * (`clock.now`): before the history's end nothing changes, so the fixed dataset tests count on is
 * untouched.
 */

export const PERIOD_MS = 6 * 3_600_000
export const BROKEN_WEBHOOK = 'https://hooks.switchboard-demo.invalid/sms/inbound'

export interface Scenario {
  seed: number
  originMs: number
  /** The number whose webhook breaks, and when within each period (from, for how long). */
  breaks: { number: string; fromMs: number; forMs: number }
  /** The number whose sends fail, and when within each period. */
  spike: { number: string; fromMs: number; forMs: number }
}

export function makeScenario(seed: number, numbers: readonly NumberProfile[], originMs: number): Scenario {
  const r = rng(mix(seed >>> 0, 6_354))
  const healthy = numbers.filter((n) => n.kind === 'normal' && n.webhook === GOOD_WEBHOOK && n.baseTotal > 0 && n.baseTotal <= 10_000)
  // The busiest number: only it receives enough in an hour (a message every 47 s) for a spike's minimum volume.
  const busiest = [...numbers].filter((n) => n.kind === 'normal').sort((a, b) => b.baseTotal - a.baseTotal)[0]
  const broken = healthy[Math.floor(r() * healthy.length)]
  if (!broken || !busiest) throw new Error('the scenario needs a number with a working webhook and a busy one')
  const minute = 60_000
  return {
    seed,
    originMs,
    // Broken for 45 to 90 minutes, starting 30 minutes to 2 hours into each period.
    breaks: { number: broken.number, fromMs: (30 + Math.floor(r() * 90)) * minute, forMs: (45 + Math.floor(r() * 46)) * minute },
    // Failing for an hour, starting 3 to 4 hours into each period (after the break has ended).
    spike: { number: busiest.number, fromMs: (180 + Math.floor(r() * 60)) * minute, forMs: 60 * minute },
  }
}

const within = (s: Scenario, w: { fromMs: number; forMs: number }, atMs: number) => {
  if (atMs < s.originMs) return false
  const into = (atMs - s.originMs) % PERIOD_MS
  return into >= w.fromMs && into < w.fromMs + w.forMs
}

/** The webhook the listing shows for `number` at `nowMs` instead of its own, or null. */
export function scenarioWebhook(s: Scenario, number: string, nowMs: number): string | null {
  return number === s.breaks.number && within(s, s.breaks, nowMs) ? BROKEN_WEBHOOK : null
}

/** Whether an outbound message of `number` dated `atMs` is refused by the scenario's spike. */
export function scenarioRefuses(s: Scenario, number: string, atMs: number): boolean {
  return number === s.spike.number && within(s, s.spike, atMs)
}
