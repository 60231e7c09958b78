import * as z from 'zod/mini'
import { ERROR_BODY } from './error-body.ts'
import { plainShape } from './message-fields.ts'

/**
 * The message index's answers (contract/index-api.ts has the paths), described once: the
 * server's route rows declare them as their responses (proxy/route-table.test.ts and the index's
 * tests hold each answer they get to them), its handlers must satisfy them to compile, and the
 * browser (src/api/index-api.ts, index-status.ts, export-jobs.ts) parses with the same ones.
 * Dates are ISO 8601 UTC strings.
 */

/** The support desk's report exports, which the tray follows as it follows the index's (their access-log actions). */
export const DESK_EXPORT_ACTIONS = ['needs-reply.export', 'opt-outs.export', 'sent-after-opt-out.export', 'quiet-hours.export'] as const
export type DeskExportAction = (typeof DESK_EXPORT_ACTIONS)[number]

const count = z.number()
const text = z.nullable(z.string())

export const SYNC_STATES = ['never', 'queued', 'syncing', 'idle', 'paused', 'error'] as const

export const freshnessAnswer = z.object({
  /** Numbers the index knows of (the account's numbers once listed) and how many are fully indexed. */
  numbersKnown: count,
  numbersComplete: count,
  /** Numbers whose sync is queued or running (the first 100). */
  syncing: z.array(z.string()),
  /** Numbers in scope of this answer that are not fully indexed: never synced, partial, error (the first 100). */
  incomplete: z.array(z.string()),
  /** The oldest last-sync time among the numbers in scope: "indexed up to". */
  indexedUpTo: text,
  /**
   * The true sizes of the two lists above, which stop at 100 names: on a 10,000-number account a
   * list's length is no count. `incompleteSyncingCount`: numbers in both.
   */
  syncingCount: z.optional(count),
  incompleteCount: z.optional(count),
  incompleteSyncingCount: z.optional(count),
})

export const numberStatusAnswer = z.object({
  number: z.string(),
  tid: z.string(),
  state: z.enum(SYNC_STATES),
  /** Messages held in the index for this number. */
  indexed: count,
  /** The upstream's total at the last sync. */
  upstreamTotal: z.nullable(count),
  newestDate: text,
  oldestDate: text,
  lastSyncedAt: text,
  /** Why a sync stopped or paused, in words. */
  error: text,
  /** While syncing: records fetched so far of the total. */
  progress: z.nullable(z.object({ done: count, total: count })),
  /** The account's listing no longer has this number: its messages stay until forgotten, never reported fresh. */
  removed: z.optional(z.boolean()),
  /** Other tids the account lists for the same number (a finding: the listing names it twice). */
  otherTids: z.optional(z.array(z.string())),
  /** When an admin forgot its messages: left alone until someone syncs it or presses "Index all". */
  forgottenAt: z.optional(text),
  /** What the last full walk found that the index could not follow; null: nothing. */
  finding: z.optional(text),
  /**
   * A further line (contract/lines.ts): the number it belongs to, whose history under this row's
   * tid it holds. Absent on a number's own row.
   */
  lineOf: z.optional(z.string()),
  /** On a number's own row: the tids of its further lines, in their keys' order (`~2` first). */
  lineTids: z.optional(z.array(z.string())),
})

export const progressAnswer = z.object({
  /** Numbers of the account (not removed from it) and how many of them are fully indexed. */
  numbersTotal: count,
  numbersDone: count,
  /** Messages held, and the upstream's totals as last seen (the goal). */
  messages: count,
  messagesTotal: count,
  /** Messages stored per second by this server's syncs over the last half minute; null when none were. */
  ratePerSecond: z.nullable(z.number()),
  /** At that rate, the time to index what is left; null when unknown or nothing is left. */
  secondsLeft: z.nullable(z.number()),
  /** Whether a sync is queued or running. */
  running: z.boolean(),
})

export const statusAnswer = z.object({
  enabled: z.boolean(),
  engine: z.enum(['pglite', 'postgres']),
  /** Whether the server indexes every number of the account on its own (INDEX_AUTO_SYNC). */
  autoSync: z.boolean(),
  /** Whether the account's list of numbers has been read; until then the index knows only the numbers someone opened. */
  accountListed: z.boolean(),
  /** The last attempt to list the account failed (why, when); null once one works. */
  accountListingFailure: z.nullable(z.object({ message: z.string(), at: z.string() })),
  /**
   * Every number the index knows (only the one asked for with `number`; none with `summary=true`;
   * with `limit` and `match`, the first `limit` in number order whose digits hold `match`).
   */
  numbers: z.array(numberStatusAnswer),
  /** With `limit` or `match`: how many numbers match, of which `numbers` holds the first. */
  numbersMatched: z.optional(count),
  freshness: freshnessAnswer,
  /** Overall progress of indexing the account. */
  progress: progressAnswer,
})

export const indexedMessageAnswer = z.object({
  number: z.string(),
  tid: z.string(),
  /** 1 = the oldest message of the number; stable as new messages arrive. */
  ordinal: count,
  /** The record's current 1-based position counted from the newest (as the upstream pages it). */
  position: count,
  /** The plain fields (contract/message-fields.ts): the upstream's text, null when it sent none. */
  ...plainShape('key', text),
  date: text,
  phone: text,
  body: text,
  mms: z.boolean(),
  /** The raw status text as the upstream sent it. */
  status: text,
  statusCode: z.nullable(count),
})

const messages = z.array(indexedMessageAnswer)

export const searchAnswer = z.object({
  /** Count of all matches: exact, unless `totalCapped`, when counting stopped there and more than `total` match. */
  total: count,
  totalCapped: z.boolean(),
  rows: messages,
  /** Opaque keyset cursor for the next (older) page; null at the end. */
  nextCursor: text,
  freshness: freshnessAnswer,
  tookMs: z.number(),
})

export const threadAnswer = z.object({
  number: z.string(),
  party: z.string(),
  total: count,
  firstDate: text,
  lastDate: text,
  /** Newest first. */
  rows: messages,
  nextCursor: text,
  freshness: freshnessAnswer,
  /** On the first page: the desk's opt-out state of this party on this number; null when not opted out. */
  optedOut: z.optional(z.nullable(z.object({ since: text }))),
})

export const partiesAnswer = z.object({
  number: z.string(),
  parties: z.array(z.object({ party: z.string(), count, lastDate: text })),
  freshness: freshnessAnswer,
})

export const statsAnswer = z.object({
  number: text,
  bucket: z.enum(['day', 'week']),
  /** The zone whose days (and Monday-first weeks) the buckets are: the request's tz, or UTC. */
  timeZone: z.string(),
  /** `day`: YYYY-MM-DD, the bucket's first day. */
  buckets: z.array(z.object({ day: z.string(), inbound: count, outbound: count, failed: count })),
  freshness: freshnessAnswer,
})

export const messageAnswer = z.object({
  message: indexedMessageAnswer,
  /** The number's total indexed messages, so the UI can place the message in the paged history. */
  total: count,
  freshness: freshnessAnswer,
})

export const locateAnswer = z.object({
  /** The newest message of that day or, if none, the newest before it; null when there is none. */
  message: z.nullable(indexedMessageAnswer),
  total: count,
  freshness: freshnessAnswer,
})

/**
 * One export's progress as the server streams it. `rows`/`bytes` count what was written to the
 * connection; `total` is the count of matches taken when it started (null until then);
 * `error` (state failed) is the one envelope's body.
 */
export const exportProgressAnswer = z.object({
  job: z.string(),
  /** `queued`: waiting for one of the server's export slots (EXPORTS_MAX, EXPORTS_PER_USER); it starts by itself. */
  state: z.enum(['queued', 'running', 'done', 'cancelled', 'failed']),
  rows: count,
  bytes: count,
  total: z.nullable(count),
  fileName: text,
  /** What it exports, in the access log's words (contract/vocabulary.ts); absent until it has started. */
  action: z.optional(z.enum(['history.export', 'search.export', ...DESK_EXPORT_ACTIONS])),
  startedAt: z.string(),
  /** State queued: 1 is next in line; the seconds until it should start, from the running exports' pace. */
  queue: z.optional(z.object({ position: count, startsInS: z.nullable(z.number()) })),
  /** State cancelled: by the person (Cancel in the tray), or by the browser (its downloads list, a dropped connection). */
  cancelledBy: z.optional(z.enum(['you', 'browser'])),
  error: z.optional(ERROR_BODY),
})

/** Each index path's answer (the export's is a file); proxy/index/routes.ts fails to compile without one for each other path. */
export const INDEX_ANSWERS = {
  status: statusAnswer,
  sync: statusAnswer,
  search: searchAnswer,
  thread: threadAnswer,
  parties: partiesAnswer,
  stats: statsAnswer,
  message: messageAnswer,
  locate: locateAnswer,
  exportProgress: exportProgressAnswer,
  exportCancel: exportProgressAnswer,
  forget: z.object({ forgotten: count }),
}

export type IndexAnswer<K extends keyof typeof INDEX_ANSWERS> = z.infer<(typeof INDEX_ANSWERS)[K]>
export type SyncState = (typeof SYNC_STATES)[number]
export type Freshness = z.infer<typeof freshnessAnswer>
export type NumberIndexStatus = z.infer<typeof numberStatusAnswer>
export type IndexProgress = z.infer<typeof progressAnswer>
export type IndexStatus = z.infer<typeof statusAnswer>
export type IndexedMessage = z.infer<typeof indexedMessageAnswer>
export type SearchResult = z.infer<typeof searchAnswer>
export type ThreadResult = z.infer<typeof threadAnswer>
export type PartiesResult = z.infer<typeof partiesAnswer>
export type StatsBucket = IndexAnswer<'stats'>['buckets'][number]
export type StatsResult = z.infer<typeof statsAnswer>
export type MessageResult = z.infer<typeof messageAnswer>
export type LocateResult = z.infer<typeof locateAnswer>
export type ExportProgress = z.infer<typeof exportProgressAnswer>
