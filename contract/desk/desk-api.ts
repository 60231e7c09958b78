import * as z from 'zod/mini'

/**
 * The support desk's paths, and the answers described once so far: the badge's count, a mark of
 * handled and its undo, and the team's settings. The route rows (proxy/desk/routes.ts) declare
 * these as their responses, the handlers' answers satisfy them to compile, the desk's tests hold
 * every answer to them (proxy/testing/answers.ts), and the browser (src/api/desk.ts) parses with
 * them. The reports' answers (needs reply, opt-outs, sends after opt-out, a customer, quiet
 * hours, segments) are still described by the browser alone.
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

/** Each route's 2xx answer. */
export const DESK_ANSWERS = {
  /** How many customers wait now, past the threshold (the navigation's badge). */
  count: z.object({ at: z.string(), thresholdMinutes: z.number(), total: z.number() }),
  handled: z.object({ number: z.string(), party: z.string(), handledAt: z.nullable(z.string()), handledBy: z.nullable(z.string()) }),
  /** The mark undone: the one it replaced came back (`restored`), or none. */
  undone: z.object({ number: z.string(), party: z.string(), restored: z.boolean() }),
  settings: z.object({ thresholdMinutes: z.number(), updatedAt: z.nullable(z.string()), updatedBy: z.nullable(z.string()) }),
} as const
export type DeskAnswer<K extends keyof typeof DESK_ANSWERS> = z.infer<(typeof DESK_ANSWERS)[K]>
export type DeskSettings = DeskAnswer<'settings'>
