import * as z from 'zod/mini'

/**
 * POST /api/history/shown (proxy/api.ts): a page fetched ahead was shown, and its read is now
 * recorded under the person's name. The browser sends it and does not wait for the answer
 * (src/api/history.ts); a page not fetched ahead for this sign-in is a 409.
 */
export const HISTORY_SHOWN_ANSWER = z.object({ recorded: z.literal(true) })
export type HistoryShownAnswer = z.infer<typeof HISTORY_SHOWN_ANSWER>
