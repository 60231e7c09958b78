import * as z from 'zod/mini'
import { ROLES } from './roles.ts'

/**
 * Who is signed in (GET /api/auth/me; a sign-in and a sign-out answer the same), apart from the
 * rest of team access's answers (access-api.ts): the app shell loads this much and no more.
 */

export const ACCESS_MODES = ['local', 'password', 'header'] as const
export type AccessMode = (typeof ACCESS_MODES)[number]

/** Who is signed in: "who am I", a sign-in and a sign-out answer it. On its own, for the app shell. */
export const ME_ANSWER = z.object({
  mode: z.enum(ACCESS_MODES),
  user: z.nullable(z.object({ name: z.string(), role: z.enum(ROLES) })),
})
export type Me = z.infer<typeof ME_ANSWER>
