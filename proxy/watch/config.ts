import { allowedHostsVariable } from '../kernel/allowed-hosts.ts'
import { z } from 'zod'

/**
 * The callback watch's settings, from the environment. Every problem is reported at once, each
 * naming its variable (as proxy/config.ts and the index's config do).
 */

export interface WatchConfig {
  /** Seconds between listings of the account's numbers; 0 turns the schedule off ("Check now" still lists). */
  intervalS: number
  /** Seconds between checks of every callback URL; 0 turns the schedule off. */
  probeIntervalS: number
  /** `name` or `name:port`, lower case: private addresses these hosts resolve to may be contacted. */
  allowedHosts: string[]
  /** Checks running at once. */
  concurrency: number
  /** The most one check may take, from DNS to the HTTP answer's headers. */
  timeoutMs: number
}

const whole = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number of seconds`)
    .transform(Number)
    .refine((n) => n === 0 || (n >= min && n <= max), `${name} must be 0 (off) or between ${min} and ${max}`)

const count = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be between ${min} and ${max}`)

const allowedHosts = allowedHostsVariable('WATCH_ALLOWED_HOSTS', 'hooks.lan, 127.0.0.1:8443, [fd00::8]')

const schema = z.object({
  // At most one listing a second: the listing shares the upstream with the index's sync (SYNC_RATE).
  WATCH_INTERVAL: whole('WATCH_INTERVAL', 10, 7 * 86_400).default(300),
  PROBE_INTERVAL: whole('PROBE_INTERVAL', 60, 7 * 86_400).default(900),
  WATCH_ALLOWED_HOSTS: allowedHosts,
  // 1,000 addresses that all time out take 1000 / 100 × 5 s = 50 s at worst (within the minute a round of
  // 1,000 may take); most answer or fail in milliseconds.
  PROBE_CONCURRENCY: count('PROBE_CONCURRENCY', 1, 256).default(100),
  PROBE_TIMEOUT_MS: count('PROBE_TIMEOUT_MS', 200, 60_000).default(5_000),
})

/** Parses the watch's variables; `issues` names each problem's variable (then `config` is null). */
export function parseWatchConfig(env: Record<string, string | undefined>): { config: WatchConfig | null; issues: string[] } {
  // Empty strings mean "unset", as shells and .env files commonly write them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const r = schema.safeParse(cleaned)
  if (!r.success) {
    const issues = r.error.issues.map((i) => {
      const variable = i.path[0] ? String(i.path[0]) : 'configuration'
      return i.message.includes(variable) ? i.message : `${variable}: ${i.message}`
    })
    return { config: null, issues }
  }
  const e = r.data
  return {
    config: {
      intervalS: e.WATCH_INTERVAL,
      probeIntervalS: e.PROBE_INTERVAL,
      allowedHosts: e.WATCH_ALLOWED_HOSTS,
      concurrency: e.PROBE_CONCURRENCY,
      timeoutMs: e.PROBE_TIMEOUT_MS,
    },
    issues: [],
  }
}
