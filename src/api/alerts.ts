import { queryOptions } from '@tanstack/react-query'
import {
  ALERTS_ANSWERS,
  type AlertChannel,
  type AlertRule,
  type ChannelKind,
  type TestResult,
  type WitnessSent,
} from '../../contract/alerts-api'
import { errorFrom, getJson, parseWire, postJson } from './client'
import { ApiError } from './errors'

/**
 * Alerts (/api/alerts, proxy/alerts/routes.ts): what fires now, the history, the rules and their
 * thresholds, the channels (never their secrets: `secret` is "set" or null) with their delivery
 * logs, and the silences in force. Reads for anyone signed in; changes for admins. The answers'
 * schemas are contract/alerts-api.ts, the server's own.
 */

export type {
  AlertChannel,
  AlertDelivery,
  AlertItem,
  AlertRule,
  AlertSilence,
  AlertsPageData,
  ChannelKind,
  TestResult,
  WitnessSent,
} from '../../contract/alerts-api'

const WHO = "The Switchboard server's"

export const ALERTS_KEY = ['alerts'] as const

export const alertsQuery = () =>
  queryOptions({
    queryKey: [...ALERTS_KEY, 'page'],
    queryFn: async ({ signal }) => parseWire(ALERTS_ANSWERS.page, await getJson('/api/alerts', {}, signal), WHO),
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
  return parseWire(ALERTS_ANSWERS.rule, await postJson(`/api/alerts/rules/${encodeURIComponent(id)}`, change), WHO).rule
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
  return parseWire(ALERTS_ANSWERS.channelMade, await postJson('/api/alerts/channels', input), WHO)
}

export async function changeChannel(id: string, input: ChannelInput): Promise<AlertChannel> {
  return parseWire(ALERTS_ANSWERS.channel, await postJson(`/api/alerts/channels/${encodeURIComponent(id)}`, input), WHO).channel
}

export const removeChannel = (id: string) => deleteOwn(`/api/alerts/channels/${encodeURIComponent(id)}`)

export async function sendTest(id: string): Promise<TestResult> {
  return parseWire(ALERTS_ANSWERS.test, await postJson(`/api/alerts/test/${encodeURIComponent(id)}`, {}), WHO).result
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
  return parseWire(ALERTS_ANSWERS.evaluated, await postJson('/api/alerts/evaluate', {}), WHO).evaluated
}

/** The access log's head, signed now, to every witness channel (admins); 409 without a signing key or a witness. */
export async function sendWitnessNow(): Promise<WitnessSent> {
  return parseWire(ALERTS_ANSWERS.witness, await postJson('/api/alerts/witness', {}), WHO)
}
