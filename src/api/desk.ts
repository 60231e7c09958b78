import { queryOptions } from '@tanstack/react-query'
import { DESK_ANSWERS, DESK_PATHS, type DeskAnswer } from '../../contract/desk/desk-api'
import { getJson, parseWire, postJson } from './client'
import { zoneName, type Zone } from '../lib/dates'

/**
 * The support desk's answers (proxy/desk/routes.ts), parsed at the edge into the app's own
 * types. The server keeps the desk's tables during sync; every one of these reads is logged.
 */

export { DESK_PATHS }

const WHO = "The support desk's"

/** The most rows one desk request may ask for (the server caps `limit` at 500). */
export const DESK_MAX_ROWS = 500

export const deskKeys = {
  all: ['desk'] as const,
  needsReply: (number: string | null, limit: number) => [...deskKeys.all, 'needs-reply', number, limit] as const,
  needsReplyCount: () => [...deskKeys.all, 'needs-reply-count'] as const,
  optOuts: (number: string | null, state: OptStateFilter) => [...deskKeys.all, 'opt-outs', number, state] as const,
  sentAfter: (number: string | null, party: string | null) => [...deskKeys.all, 'sent-after', number, party] as const,
  customer: (party: string) => [...deskKeys.all, 'customer', party] as const,
  quietHours: (number: string, from: string, to: string) => [...deskKeys.all, 'quiet-hours', number, from, to] as const,
  segments: (number: string, from: string, to: string) => [...deskKeys.all, 'segments', number, from, to] as const,
  settings: () => [...deskKeys.all, 'settings'] as const,
}

// ---- needs reply ----------------------------------------------------------------------------

export type NeedsReply = DeskAnswer<'needsReply'>
export type QueueEntry = NeedsReply['rows'][number]

/** The queue (longest wait first); `limit` 1 is the navigation's count. The threshold is the team's, set on the server. */
export const needsReplyQuery = (number: string | null, limit = DESK_MAX_ROWS) =>
  queryOptions({
    queryKey: deskKeys.needsReply(number, limit),
    queryFn: async ({ signal }) =>
      parseWire(DESK_ANSWERS.needsReply, await getJson(DESK_PATHS.needsReply, { number: number ?? undefined, limit }, signal), WHO),
    staleTime: 30_000,
    // Waiting times grow and replies arrive during sync: look again every minute.
    refetchInterval: 60_000,
    retry: false,
  })

/** How many customers wait now (the navigation's badge): a count, no customer in it, so not an access-log entry. */
export const needsReplyCountQuery = () =>
  queryOptions({
    queryKey: deskKeys.needsReplyCount(),
    queryFn: async ({ signal }) => parseWire(DESK_ANSWERS.count, await getJson(DESK_PATHS.needsReplyCount, {}, signal), WHO),
    staleTime: 30_000,
    // Waiting times grow and replies arrive during sync: look again every minute.
    refetchInterval: 60_000,
    retry: false,
  })

/**
 * A report's CSV export as the export tray starts it (api/export-jobs.ts): the server's path and
 * the page's filters. The server streams the whole report (the pages list the first rows only),
 * waiting its turn under the export limits, and the tray shows its place, progress and Cancel.
 */
export interface ReportExport {
  path: string
  params: Record<string, string | null>
}

/** The whole queue, longest wait first; each date also in the page's zone (`tz`), at the end of the row. */
export const needsReplyExport = (number: string | null, zone: Zone): ReportExport => ({
  path: DESK_PATHS.needsReplyExport,
  params: { number, tz: zoneName(zone) },
})

/** The whole opt-out ledger (the page shows at most DESK_MAX_ROWS). */
export const optOutsExport = (number: string | null, state: OptStateFilter, zone: Zone): ReportExport => ({
  path: DESK_PATHS.optOutsExport,
  params: { number, state: state === 'all' ? null : state, tz: zoneName(zone) },
})

/** Every send after opt-out, with both messages. */
export const sentAfterExport = (number: string | null, party: string | null, zone: Zone): ReportExport => ({
  path: DESK_PATHS.sentAfterExport,
  params: { number, party, tz: zoneName(zone) },
})

/** Handled up to `through`, the newest message from the customer that was shown (its ordinal), when known. */
export async function markHandled(number: string, party: string, through: number | null = null) {
  return parseWire(DESK_ANSWERS.handled, await postJson(DESK_PATHS.handled, { number, party, ...(through ? { through } : {}) }), WHO)
}

/** Undoes the mark made at `handledAt` (as markHandled's answer gave it): the one it replaced comes back, or none. */
export async function undoHandled(number: string, party: string, handledAt: string) {
  return parseWire(DESK_ANSWERS.undone, await postJson(DESK_PATHS.unhandled, { number, party, handledAt }), WHO)
}

// ---- the team's settings --------------------------------------------------------------------

export type { DeskSettings } from '../../contract/desk/desk-api'

export const deskSettingsQuery = () =>
  queryOptions({
    queryKey: deskKeys.settings(),
    queryFn: async ({ signal }) => parseWire(DESK_ANSWERS.settings, await getJson(DESK_PATHS.settings, {}, signal), WHO),
    staleTime: 60_000,
    retry: false,
  })

export async function saveDeskSettings(thresholdMinutes: number) {
  return parseWire(DESK_ANSWERS.settings, await postJson(DESK_PATHS.settings, { thresholdMinutes }), WHO)
}

// ---- opt-outs -------------------------------------------------------------------------------

export type OptStateFilter = 'all' | 'opted-out' | 'opted-in'

export type OptOuts = DeskAnswer<'optOuts'>
export type OptRow = OptOuts['rows'][number]

export const optOutsQuery = (number: string | null, state: OptStateFilter) =>
  queryOptions({
    queryKey: deskKeys.optOuts(number, state),
    queryFn: async ({ signal }) =>
      parseWire(
        DESK_ANSWERS.optOuts,
        await getJson(DESK_PATHS.optOuts, { number: number ?? undefined, state, limit: DESK_MAX_ROWS }, signal),
        WHO,
      ),
    staleTime: 30_000,
    retry: false,
  })

export type SentAfter = DeskAnswer<'sentAfter'>
export type SentAfterRow = SentAfter['rows'][number]

export const sentAfterQuery = (number: string | null, party: string | null) =>
  queryOptions({
    queryKey: deskKeys.sentAfter(number, party),
    queryFn: async ({ signal }) =>
      parseWire(
        DESK_ANSWERS.sentAfter,
        await getJson(DESK_PATHS.sentAfter, { number: number ?? undefined, party: party ?? undefined, limit: DESK_MAX_ROWS }, signal),
        WHO,
      ),
    staleTime: 30_000,
    retry: false,
  })

// ---- one customer ---------------------------------------------------------------------------

export type Customer = DeskAnswer<'customer'>
export type CustomerThread = Customer['threads'][number]

export const customerQuery = (party: string) =>
  queryOptions({
    queryKey: deskKeys.customer(party),
    queryFn: async ({ signal }) => parseWire(DESK_ANSWERS.customer, await getJson(DESK_PATHS.customer, { party }, signal), WHO),
    staleTime: 30_000,
    retry: false,
  })

// ---- quiet hours and segments ---------------------------------------------------------------

export type QuietHours = DeskAnswer<'quietHours'>

export const quietHoursQuery = (number: string, from: string, to: string) =>
  queryOptions({
    queryKey: deskKeys.quietHours(number, from, to),
    queryFn: async ({ signal }) =>
      parseWire(DESK_ANSWERS.quietHours, await getJson(DESK_PATHS.quietHours, { number, from, to, limit: DESK_MAX_ROWS }, signal), WHO),
    staleTime: 30_000,
    retry: false,
  })

/** Every quiet-hour send of the number in the range (the page lists the newest DESK_MAX_ROWS). */
export const quietHoursExport = (number: string, from: string, to: string, zone: Zone): ReportExport => ({
  path: DESK_PATHS.quietHoursExport,
  params: { number, from, to, tz: zoneName(zone) },
})

export type Segments = DeskAnswer<'segments'>

export const segmentsQuery = (number: string, from: string, to: string) =>
  queryOptions({
    queryKey: deskKeys.segments(number, from, to),
    queryFn: async ({ signal }) => parseWire(DESK_ANSWERS.segments, await getJson(DESK_PATHS.segments, { number, from, to }, signal), WHO),
    staleTime: 30_000,
    retry: false,
  })
