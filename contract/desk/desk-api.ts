import * as z from 'zod/mini'

/**
 * The support desk's paths, and its answers described once: the reports, the badge's count, a
 * mark of handled and its undo, and the team's settings. The route rows (proxy/desk/routes.ts)
 * declare these as their responses, the handlers' answers satisfy them to compile, the desk's
 * tests hold every answer to them (proxy/testing/answers.ts), and the browser (src/api/desk.ts)
 * parses with them. Dates are ISO 8601 UTC strings; the reports' CSV exports are files.
 */

export const DESK_PATHS = {
  needsReply: '/api/desk/needs-reply',
  needsReplyExport: '/api/desk/needs-reply/export',
  needsReplyCount: '/api/desk/needs-reply/count',
  handled: '/api/desk/handled',
  unhandled: '/api/desk/handled/undo',
  optOuts: '/api/desk/opt-outs',
  optOutsExport: '/api/desk/opt-outs/export',
  sentAfter: '/api/desk/sent-after-opt-out',
  sentAfterExport: '/api/desk/sent-after-opt-out/export',
  customer: '/api/desk/customer',
  quietHours: '/api/desk/quiet-hours',
  quietHoursExport: '/api/desk/quiet-hours/export',
  segments: '/api/desk/segments',
  settings: '/api/desk/settings',
} as const

const n = z.number()
const text = z.nullable(z.string())
/** A party's opt-out changes on a number, oldest first: each the message that made it. */
const optHistory = z.array(z.object({ state: z.string(), ordinal: n, date: text }))

const queueEntry = z.object({
  number: z.string(),
  party: z.string(),
  since: text,
  waitedMs: n,
  unanswered: n,
  lastInbound: z.object({ ordinal: z.nullable(n), date: text, body: text }),
  handled: z.nullable(z.object({ at: text, by: text })),
  /** Opted out on that number now: answer by call or email, not by text. */
  optedOut: z.boolean(),
})

const optRow = z.object({ number: z.string(), party: z.string(), optedOut: z.boolean(), since: text, history: optHistory, sentAfter: n })

const sentAfterRow = z.object({
  number: z.string(),
  party: z.string(),
  message: z.object({ ordinal: n, date: text, body: text, status: text, failed: z.boolean() }),
  optOut: z.object({ ordinal: n, date: text, body: text }),
  afterMs: n,
})

const customerThread = z.object({
  number: z.string(),
  party: z.string(),
  firstAt: text,
  lastAt: text,
  inbound: n,
  outbound: n,
  failed: n,
  waitingSince: text,
  unanswered: n,
  optedOut: z.boolean(),
  optedOutAt: text,
  optHistory,
  sentAfter: n,
})

/** Each route's 2xx answer. */
export const DESK_ANSWERS = {
  /** The queue, longest wait first (`total` counts it all; `rows` the first `limit`). */
  needsReply: z.object({ at: z.string(), thresholdMinutes: n, total: n, rows: z.array(queueEntry) }),
  /** The opt-out ledger: its sums, and its first rows. */
  optOuts: z.object({ optedOut: n, optedBackIn: n, sentAfter: n, total: n, rows: z.array(optRow) }),
  sentAfter: z.object({ total: n, rows: z.array(sentAfterRow) }),
  /** One customer across every number that holds their messages. */
  customer: z.object({
    party: z.string(),
    numbers: z.array(z.string()),
    firstContact: text,
    lastContact: text,
    inbound: n,
    outbound: n,
    failed: n,
    optedOutOn: z.array(z.string()),
    waitingSince: text,
    threads: z.array(customerThread),
  }),
  quietHours: z.object({
    number: z.string(),
    /** The local hours that are not quiet: from `start` to `end` o'clock. */
    window: z.object({ start: n, end: n }),
    approximate: z.string(),
    outbound: n,
    unknownZone: n,
    quiet: n,
    days: z.array(z.object({ day: z.string(), quiet: n })),
    rows: z.array(z.object({ ordinal: n, party: z.string(), date: text, localDay: text, body: text })),
  }),
  segments: z.object({
    number: z.string(),
    days: z.array(z.object({ day: z.string(), messages: n, segments: n, ucs2: n, extra: n })),
    costliest: z.array(z.object({ char: z.string(), messages: n, extraSegments: n })),
    /** Every character that forced UCS-2 in the span, and those of them that never cost a segment (`costliest` holds 20 at most). */
    forcingCharacters: n,
    freeCharacters: n,
  }),
  /** How many customers wait now, past the threshold (the navigation's badge). */
  count: z.object({ at: z.string(), thresholdMinutes: z.number(), total: z.number() }),
  handled: z.object({ number: z.string(), party: z.string(), handledAt: z.nullable(z.string()), handledBy: z.nullable(z.string()) }),
  /** The mark undone: the one it replaced came back (`restored`), or none. */
  undone: z.object({ number: z.string(), party: z.string(), restored: z.boolean() }),
  settings: z.object({ thresholdMinutes: z.number(), updatedAt: z.nullable(z.string()), updatedBy: z.nullable(z.string()) }),
} as const
export type DeskAnswer<K extends keyof typeof DESK_ANSWERS> = z.infer<(typeof DESK_ANSWERS)[K]>
export type DeskSettings = DeskAnswer<'settings'>
