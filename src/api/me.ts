import { queryOptions, useQuery } from '@tanstack/react-query'
import { ME_ANSWER, type Me } from '../../contract/me-api'
import { allows, can, LEAST_ROLE, MOST_ROLE, type AccessLevel, type Permission, type Role } from '../../contract/roles'
import { getJson, parseWire } from './client'

/**
 * Who is signed in (`GET /api/auth/me`), on its own so the app shell loads only this much of
 * team access; the rest (users, the access log, signing in) is in access.ts, with its pages.
 */

export type { AccessMode, Me } from '../../contract/me-api'
export type { Role } from '../../contract/roles'

export const ME_PATH = '/api/auth/me'
const WHO = "The Switchboard server's"

export const ME_KEY = ['access', 'me'] as const

export const meQuery = () =>
  queryOptions({
    queryKey: ME_KEY,
    queryFn: async ({ signal }) => parseWire(ME_ANSWER, await getJson(ME_PATH, {}, signal), WHO),
    staleTime: 60_000,
    retry: false,
  })

/**
 * What the signed-in person may do in the UI. `unknown` while /api/auth/me has not answered (or
 * could not): admin-only controls stay hidden until the server says so, never shown on a guess.
 * The server checks every admin action itself; this only decides what is offered.
 */
export type Access = Role | 'unknown'
export function accessOf(me: Me | undefined): Access {
  if (!me) return 'unknown'
  if (me.mode === 'local') return MOST_ROLE
  return me.user?.role ?? LEAST_ROLE
}

/** Whether the UI offers what a permission opens: null while the role is unknown (neither the control nor its explanation shows). */
export const mayDo = (access: Access, permission: Permission): boolean | null => (access === 'unknown' ? null : can(access, permission))
/** Whether the UI offers what a route of that access level does; null while the role is unknown. */
export const mayAt = (access: Access, level: AccessLevel): boolean | null => (access === 'unknown' ? null : allows(access, level))

/** Who is signed in: `{ mode, user }` (user null when nobody is; in local mode "local", admin). */
export function useMe() {
  return useQuery(meQuery())
}
