import * as z from 'zod/mini'
import { ERROR_KINDS } from './api.ts'

/**
 * The one error body (contract/api.ts ErrorBody) as a schema: what the browser reads from every
 * refusal's `{ error }` (src/api/errors.ts), and the body an export's progress record carries
 * when it failed (index-answers.ts).
 */
export const ERROR_BODY = z.object({
  kind: z.enum(ERROR_KINDS),
  message: z.string(),
  upstreamStatus: z.optional(z.number()),
  field: z.optional(z.string()),
  retryAfterMs: z.optional(z.number()),
  /** What failed and where ("connection refused by api.example.com:443"), when the server knows. */
  cause: z.optional(z.string()),
})
