import * as z from 'zod/mini'

/**
 * Alerts' answers (proxy/alerts/routes.ts, witness-routes.ts), described once: each route row
 * declares its answer here as its `response`, the handlers' answers must satisfy these types to
 * compile, the server's tests hold every answer they get to them (proxy/testing/answers.ts), and
 * the browser (src/api/alerts.ts) parses with the same schemas. Channels never carry their
 * secrets: `secret` is "set" or null.
 */

const alertWire = z.object({
  id: z.string(),
  rule: z.string(),
  ruleTitle: z.string(),
  subject: z.string(),
  number: z.nullable(z.string()),
  state: z.enum(['firing', 'resolved']),
  title: z.string(),
  detail: z.string(),
  count: z.nullable(z.number()),
  link: z.nullable(z.string()),
  startedAt: z.string(),
  updatedAt: z.string(),
  resolvedAt: z.nullable(z.string()),
  notifiedAt: z.nullable(z.string()),
  ackedAt: z.nullable(z.string()),
  ackedBy: z.nullable(z.string()),
})
export type AlertItem = z.infer<typeof alertWire>

const ruleWire = z.object({
  id: z.string(),
  title: z.string(),
  about: z.string(),
  group: z.string(),
  enabled: z.boolean(),
  urgent: z.boolean(),
  params: z.record(z.string(), z.number()),
  defaults: z.record(z.string(), z.number()),
  reminderMinutes: z.number(),
  updatedAt: z.string(),
  updatedBy: z.nullable(z.string()),
})
export type AlertRule = z.infer<typeof ruleWire>

const channelWire = z.object({
  id: z.string(),
  kind: z.enum(['webhook', 'slack', 'email']),
  name: z.string(),
  target: z.string(),
  secret: z.nullable(z.literal('set')),
  enabled: z.boolean(),
  details: z.boolean(),
  witness: z.boolean(),
  quietStart: z.nullable(z.number()),
  quietEnd: z.nullable(z.number()),
  quietZone: z.string(),
  source: z.enum(['ui', 'env']),
})
export type AlertChannel = z.infer<typeof channelWire>
export type ChannelKind = AlertChannel['kind']

const silenceWire = z.object({
  id: z.string(),
  rule: z.nullable(z.string()),
  number: z.nullable(z.string()),
  until: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
})
export type AlertSilence = z.infer<typeof silenceWire>

const deliveryWire = z.object({
  id: z.string(),
  key: z.string(),
  channel: z.string(),
  kind: z.string(),
  title: z.string(),
  state: z.enum(['pending', 'sent', 'dead']),
  attempts: z.number(),
  runAt: z.string(),
  createdAt: z.string(),
  sentAt: z.nullable(z.string()),
  lastError: z.nullable(z.string()),
  log: z.array(z.object({ at: z.string(), status: z.nullable(z.number()), ms: z.number(), error: z.nullable(z.string()) })),
})
export type AlertDelivery = z.infer<typeof deliveryWire>

const pageWire = z.object({
  firing: z.array(alertWire),
  history: z.array(alertWire),
  rules: z.array(ruleWire),
  channels: z.array(channelWire),
  silences: z.array(silenceWire),
  deliveries: z.array(deliveryWire),
  emailReady: z.boolean(),
  /** Whether the server signs the access log's head (LOG_SIGNING_KEY_FILE), and when the daily witness notice last went. */
  witness: z.object({ signing: z.boolean(), lastDaily: z.nullable(z.string()) }),
})
export type AlertsPageData = z.infer<typeof pageWire>

const deliveryResult = z.object({ ok: z.boolean(), status: z.nullable(z.number()), ms: z.number(), error: z.nullable(z.string()) })
export type TestResult = z.infer<typeof deliveryResult>

/** Each route's 2xx answer. */
export const ALERTS_ANSWERS = {
  page: pageWire,
  rule: z.object({ rule: ruleWire }),
  channelMade: z.object({ channel: channelWire, secretOnce: z.optional(z.string()) }),
  channel: z.object({ channel: channelWire }),
  channelDeleted: z.object({ deleted: z.literal(true) }),
  test: z.object({ result: deliveryResult }),
  acknowledged: z.object({ acknowledged: z.literal(true) }),
  silenceMade: z.object({ silence: z.nullable(silenceWire) }),
  silenceEnded: z.object({ ended: z.literal(true) }),
  evaluated: z.object({ evaluated: z.object({ opened: z.number(), resolved: z.number(), notices: z.number() }) }),
  witness: z.object({
    head: z.object({ seq: z.string(), hash: z.string(), at: z.string() }),
    sent: z.array(z.extend(deliveryResult, { channel: z.string(), name: z.string() })),
  }),
} as const
export type WitnessSent = z.infer<typeof ALERTS_ANSWERS.witness>
/** A route's answer, for the server's handlers to satisfy (an answer that strays fails to compile). */
export type AlertsAnswer<K extends keyof typeof ALERTS_ANSWERS> = z.infer<(typeof ALERTS_ANSWERS)[K]>
