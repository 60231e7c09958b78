import { z } from 'zod'

/**
 * The rules: what each one watches, in words, and the thresholds an admin may tune. The rows
 * (alert_rules, seeded by migration 620 with the defaults below) hold each rule's switch and
 * thresholds; a stored value outside its bounds is read as the default rather than trusted.
 */

const int = (min: number, max: number, what: string) =>
  z
    .number({ error: `${what} must be a number.` })
    .int(`${what} must be a whole number.`)
    .min(min, `${what} must be at least ${min}.`)
    .max(max, `${what} must be at most ${max}.`)
const ratio = (what: string) =>
  z
    .number({ error: `${what} must be a number.` })
    .min(0, `${what} must be 0 or more.`)
    .max(1, `${what} must be at most 1.`)

export const RULES = {
  'failure-spike': {
    title: 'Failure spike',
    about:
      'Outbound messages the provider refused (status 400 and up) over a window, against the number’s own trailing rate, above a minimum volume.',
    group: 'messages',
    params: z.strictObject({
      windowMinutes: int(15, 1440, 'windowMinutes'),
      minOutbound: int(1, 1_000_000, 'minOutbound'),
      minFailed: int(1, 1_000_000, 'minFailed'),
      minRate: ratio('minRate'),
      baselineHours: int(1, 2160, 'baselineHours'),
      factor: z.number({ error: 'factor must be a number.' }).min(1, 'factor must be at least 1.').max(100, 'factor must be at most 100.'),
    }),
    defaults: { windowMinutes: 60, minOutbound: 20, minFailed: 5, minRate: 0.2, baselineHours: 168, factor: 3 },
  },
  'customer-waiting': {
    title: 'Customer waiting',
    about: 'Customers whose message has waited for a reply longer than the threshold (the desk’s needs-reply queue).',
    group: 'desk',
    params: z.strictObject({ minutes: int(5, 43_200, 'minutes'), minThreads: int(1, 100_000, 'minThreads') }),
    defaults: { minutes: 120, minThreads: 1 },
  },
  'customer-waiting-all': {
    title: 'Customers waiting (all numbers)',
    about:
      'Customers waiting for a reply longer than the threshold on every number together: one alert for the account once enough of them wait, however they are spread over the numbers.',
    group: 'desk',
    params: z.strictObject({ minutes: int(5, 43_200, 'minutes'), minThreads: int(1, 100_000, 'minThreads') }),
    defaults: { minutes: 120, minThreads: 10 },
  },
  'sent-after-opt-out': {
    title: 'Sent after opt-out',
    about: 'A message sent to a customer who had opted out, within the look-back.',
    group: 'desk',
    params: z.strictObject({ lookbackHours: int(1, 720, 'lookbackHours') }),
    defaults: { lookbackHours: 24 },
  },
  'sync-stalled': {
    title: 'Sync stalled',
    about: 'A number’s sync that has not moved (no heartbeat) for longer than the threshold.',
    group: 'upkeep',
    params: z.strictObject({ minutes: int(2, 1440, 'minutes') }),
    defaults: { minutes: 15 },
  },
  'sync-failing': {
    title: 'Sync failing',
    about: 'A number whose sync failed this many times in a row.',
    group: 'upkeep',
    params: z.strictObject({ failures: int(1, 100, 'failures') }),
    defaults: { failures: 3 },
  },
  'credentials-refused': {
    title: 'Credentials refused',
    about: 'The messaging service refused the account’s credentials (API_SYS_ID, API_AUTH_TOKEN).',
    group: 'upkeep',
    params: z.strictObject({}),
    defaults: {},
  },
  'index-behind': {
    title: 'Index behind',
    about: 'A number whose index holds fewer messages than the messaging service reports, by more than the threshold.',
    group: 'upkeep',
    params: z.strictObject({ messages: int(1, 100_000_000, 'messages') }),
    defaults: { messages: 1000 },
  },
  'access-log': {
    title: 'Access log does not verify',
    about: 'The access log’s hash chain, recomputed on a schedule, no longer verifies.',
    group: 'security',
    params: z.strictObject({ everyMinutes: int(5, 1440, 'everyMinutes') }),
    defaults: { everyMinutes: 60 },
  },
  'callback-changed': {
    title: 'Callback changed',
    about: 'The callback watch saw a number’s callback address change.',
    group: 'watch',
    params: z.strictObject({ holdHours: int(1, 720, 'holdHours') }),
    defaults: { holdHours: 24 },
  },
  'endpoint-failing': {
    title: 'Endpoint failing',
    about: 'A callback endpoint failed this many checks in a row; resolved after that many good ones.',
    group: 'watch',
    params: z.strictObject({ failures: int(1, 100, 'failures'), recoveries: int(1, 100, 'recoveries') }),
    defaults: { failures: 3, recoveries: 2 },
  },
  'cert-expiring': {
    title: 'Certificate expiring',
    about: 'A callback endpoint’s TLS certificate expires within the days given.',
    group: 'watch',
    params: z.strictObject({ days: int(1, 365, 'days'), holdHours: int(1, 720, 'holdHours') }),
    defaults: { days: 14, holdHours: 26 },
  },
} as const

export type RuleId = keyof typeof RULES
export const RULE_IDS = Object.keys(RULES) as RuleId[]
export const isRuleId = (s: string): s is RuleId => Object.hasOwn(RULES, s)

/** A rule's thresholds as stored, or its defaults where the stored ones do not pass. */
export function paramsOf<R extends RuleId>(id: R, stored: unknown): z.infer<(typeof RULES)[R]['params']> {
  const rule = RULES[id]
  const merged = { ...rule.defaults, ...(stored && typeof stored === 'object' ? stored : {}) }
  const parsed = rule.params.safeParse(merged)
  return (parsed.success ? parsed.data : rule.defaults) as z.infer<(typeof RULES)[R]['params']>
}

export interface RuleRow {
  id: RuleId
  enabled: boolean
  urgent: boolean
  params: Record<string, number>
  reminderMinutes: number
  updatedAt: string
  updatedBy: string | null
}
