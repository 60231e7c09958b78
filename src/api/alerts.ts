import { queryOptions } from '@tanstack/react-query'
import * as z from 'zod/mini'
import { errorFrom, getJson, parseWire, postJson } from './client'
import { ApiError } from './errors'

/**
 * Alerts (/api/alerts, proxy/alerts/routes.ts): what fires now, the history, the rules and their
 * thresholds, the channels (never their secrets: `secret` is "set" or null) with their delivery
 * logs, and the silences in force. Reads for anyone signed in; changes for admins.
 */

const WHO = "The Switchboard server's"

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

export const ALERTS_KEY = ['alerts'] as const

export const alertsQuery = () =>
  queryOptions({
    queryKey: [...ALERTS_KEY, 'page'],
    queryFn: async ({ signal }) => parseWire(pageWire, await getJson('/api/alerts', {}, signal), WHO),
    staleTime: 15_000,
    refetchInterval: 30_000,
  })

async function deleteOwn(path: string): Promise<void> {
  let res: Response
  try {
    res = await fetch(path, { method: 'DELETE', credentials: 'same-origin', headers: { accept: 'application/json' } })
  } catch {
    throw new ApiError('unreachable', 'The Switchboard server could not be reached.', 0)
  }
  if (!res.ok) throw await errorFrom(res)
}

export async function changeRule(
  id: string,
  change: { enabled?: boolean; urgent?: boolean; reminderMinutes?: number; params?: Record<string, number> },
): Promise<AlertRule> {
  return parseWire(z.object({ rule: ruleWire }), await postJson(`/api/alerts/rules/${encodeURIComponent(id)}`, change), WHO).rule
}

export interface ChannelInput {
  name?: string
  target?: string
  secret?: string
  enabled?: boolean
  details?: boolean
  witness?: boolean
  quietStart?: number | null
  quietEnd?: number | null
  quietZone?: string
}

/** A new channel; `secretOnce` is a webhook secret the server made, shown this once. */
export async function addChannel(input: ChannelInput & { kind: ChannelKind; name: string; target: string }) {
  return parseWire(
    z.object({ channel: channelWire, secretOnce: z.optional(z.string()) }),
    await postJson('/api/alerts/channels', input),
    WHO,
  )
}

export async function changeChannel(id: string, input: ChannelInput): Promise<AlertChannel> {
  return parseWire(z.object({ channel: channelWire }), await postJson(`/api/alerts/channels/${encodeURIComponent(id)}`, input), WHO).channel
}

export const removeChannel = (id: string) => deleteOwn(`/api/alerts/channels/${encodeURIComponent(id)}`)

const deliveryResult = z.object({ ok: z.boolean(), status: z.nullable(z.number()), ms: z.number(), error: z.nullable(z.string()) })
const resultWire = z.object({ result: deliveryResult })
export type TestResult = z.infer<typeof resultWire>['result']

export async function sendTest(id: string): Promise<TestResult> {
  return parseWire(resultWire, await postJson(`/api/alerts/test/${encodeURIComponent(id)}`, {}), WHO).result
}

export async function acknowledgeAlert(id: string): Promise<void> {
  await postJson(`/api/alerts/ack/${encodeURIComponent(id)}`, {})
}

export async function addSilence(input: { rule?: string | null; number?: string | null; until: string }): Promise<void> {
  await postJson('/api/alerts/silences', input)
}

export const endSilence = (id: string) => deleteOwn(`/api/alerts/silences/${encodeURIComponent(id)}`)

/** Every rule evaluated now (admins), rather than at the next interval. */
export async function evaluateNow(): Promise<{ opened: number; resolved: number; notices: number }> {
  return parseWire(
    z.object({ evaluated: z.object({ opened: z.number(), resolved: z.number(), notices: z.number() }) }),
    await postJson('/api/alerts/evaluate', {}),
    WHO,
  ).evaluated
}

const witnessWire = z.object({
  head: z.object({ seq: z.string(), hash: z.string(), at: z.string() }),
  sent: z.array(z.extend(deliveryResult, { channel: z.string(), name: z.string() })),
})
export type WitnessSent = z.infer<typeof witnessWire>

/** The access log's head, signed now, to every witness channel (admins); 409 without a signing key or a witness. */
export async function sendWitnessNow(): Promise<WitnessSent> {
  return parseWire(witnessWire, await postJson('/api/alerts/witness', {}), WHO)
}
