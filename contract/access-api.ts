import * as z from 'zod/mini'
import { ME_ANSWER } from './me-api.ts'
import { ROLES } from './roles.ts'

export { ACCESS_MODES, ME_ANSWER, type AccessMode, type Me } from './me-api.ts'

/**
 * Team access's answers (/api/auth/*: proxy/access/routes.ts, user-routes.ts, log-routes.ts),
 * described once: the route rows declare them as their responses, the handlers' answers satisfy
 * them to compile, the access tests hold every answer to them (proxy/testing/answers.ts), and the
 * browser (src/api/me.ts, access.ts) parses with them.
 */

const userWire = z.object({ name: z.string(), role: z.enum(ROLES), disabled: z.boolean(), createdAt: z.string(), updatedAt: z.string() })
export type User = z.infer<typeof userWire>

const entryWire = z.object({
  id: z.string(),
  seq: z.optional(z.nullable(z.string())),
  at: z.string(),
  actor: z.string(),
  via: z.string(),
  address: z.string(),
  action: z.string(),
  number: z.nullable(z.string()),
  party: z.nullable(z.string()),
  details: z.record(z.string(), z.unknown()),
})
export type AccessLogEntry = z.infer<typeof entryWire>

/** Each route's 2xx answer. */
export const ACCESS_ANSWERS = {
  me: ME_ANSWER,
  users: z.object({ users: z.array(userWire) }),
  /** A user added or changed. */
  user: z.object({ user: userWire }),
  removed: z.object({ removed: z.string(), privateViews: z.number(), sharedViews: z.number() }),
  log: z.object({ entries: z.array(entryWire), nextCursor: z.nullable(z.string()) }),
  /** The chain recomputed: intact from entry `first` to `last`, or the first entry changed, missing or outside it. */
  verify: z.object({
    intact: z.boolean(),
    first: z.nullable(z.string()),
    last: z.nullable(z.string()),
    checked: z.number(),
    problem: z.nullable(z.object({ seq: z.nullable(z.string()), kind: z.string(), message: z.string() })),
    message: z.string(),
  }),
} as const
export type AccessAnswer<K extends keyof typeof ACCESS_ANSWERS> = z.infer<(typeof ACCESS_ANSWERS)[K]>
export type AccessLogPage = AccessAnswer<'log'>
export type LogVerdictAnswer = AccessAnswer<'verify'>
