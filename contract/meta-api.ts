import * as z from 'zod/mini'
import { ACCESS_MODES } from './me-api.ts'

/**
 * GET /api/meta, described once: what the server is configured with that the app must respect.
 * The server's route (proxy/app.ts) and each room's part of it (index, team access, alerts)
 * satisfy it, proxy/route-table.test.ts holds the answer to it, and the browser (src/api/meta.ts)
 * parses with it. A room that is not composed (a test's bare app) leaves its part out.
 */
export const META_ANSWER = z.object({
  /** The most records one history request may span (HISTORY_PAGE_CAP). */
  historyPageCap: z.number().check(z.int(), z.positive()),
  timeZone: z.string(),
  /** The message index: on or off (INDEX), and on which engine. */
  index: z.optional(z.object({ enabled: z.boolean(), engine: z.optional(z.enum(['pglite', 'postgres'])) })),
  accessMode: z.optional(z.enum(ACCESS_MODES)),
  alerts: z.optional(z.object({ rules: z.number(), evalIntervalSeconds: z.number(), email: z.boolean() })),
  /** Who answers: the built-in simulator (demo data, with its account) or a configured upstream. */
  upstream: z.optional(
    z.union([z.object({ kind: z.literal('simulator'), account: z.enum(['demo', 'large']) }), z.object({ kind: z.literal('configured') })]),
  ),
})
export type MetaAnswer = z.infer<typeof META_ANSWER>
/** A room's part of the answer. */
export type MetaPart = Partial<Omit<MetaAnswer, 'historyPageCap' | 'timeZone'>>
