import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import { ACCESS_ANSWERS, ME_ANSWER, type AccessLogPage, type LogVerdictAnswer, type User } from '../../contract/access-api'
import { getJson, parseWire, postJson } from './client'
import { ApiError, errorEnvelope } from './errors'

/**
 * The browser side of team access (/api/auth/*, served by proxy/access/routes.ts): who is
 * signed in, signing in and out, users (admins) and the access log (admins).
 */

import { ME_PATH, type Me, type Role } from './me'

export { meQuery, useMe, type AccessMode, type Me, type Role } from './me'

export type { AccessLogEntry, AccessLogPage, User } from '../../contract/access-api'

const WHO = "The Switchboard server's"

export const AUTH_PATHS = {
  me: ME_PATH,
  signIn: '/api/auth/signin',
  signOut: '/api/auth/signout',
  users: '/api/auth/users',
  user: (name: string) => `/api/auth/users/${encodeURIComponent(name)}`,
  accessLog: '/api/auth/access-log',
  accessLogExport: '/api/auth/access-log/export',
  accessLogVerify: '/api/auth/access-log/verify',
} as const

/**
 * Sign-in and user removal go through this one small fetch (the rest use client.ts): a wrong
 * password is a 401 that must stay on the sign-in form, not count as "your session is gone",
 * and the client has no DELETE.
 */
async function sendOwn(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
  let res: Response
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    throw new ApiError('unreachable', 'The Switchboard server could not be reached.', 0)
  }
  const text = await res.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  if (!res.ok) {
    const env = errorEnvelope.safeParse(json)
    if (env.success) {
      const e = env.data.error
      throw new ApiError(e.kind, e.message, res.status, { field: e.field, retryAfterMs: e.retryAfterMs })
    }
    throw new ApiError(
      res.status >= 500 ? 'server_error' : 'invalid_request',
      `The Switchboard server answered HTTP ${res.status}.`,
      res.status,
    )
  }
  return json
}

export async function signIn(name: string, password: string): Promise<Me> {
  return parseWire(ME_ANSWER, await sendOwn('POST', AUTH_PATHS.signIn, { name, password }), WHO)
}

export async function signOut(): Promise<void> {
  await sendOwn('POST', AUTH_PATHS.signOut)
}

export const usersQuery = () =>
  queryOptions({
    queryKey: ['access', 'users'],
    queryFn: async ({ signal }) => parseWire(ACCESS_ANSWERS.users, await getJson(AUTH_PATHS.users, {}, signal), WHO).users,
  })

export async function addUser(input: { name: string; role: Role; password: string }): Promise<User> {
  return parseWire(ACCESS_ANSWERS.user, await postJson(AUTH_PATHS.users, input), WHO).user
}

export async function changeUser(name: string, change: { role?: Role; password?: string; disabled?: boolean }): Promise<User> {
  return parseWire(ACCESS_ANSWERS.user, await postJson(AUTH_PATHS.user(name), change), WHO).user
}

export async function removeUser(name: string): Promise<void> {
  await sendOwn('DELETE', AUTH_PATHS.user(name))
}

export interface LogFilters {
  user?: string
  number?: string
  party?: string
  action?: string
  from?: string
  to?: string
}

/** One page of the access log, newest first; `cursor` is the previous page's nextCursor. */
export async function fetchAccessLog(filters: LogFilters, cursor: string | null, signal?: AbortSignal): Promise<AccessLogPage> {
  return parseWire(ACCESS_ANSWERS.log, await getJson(AUTH_PATHS.accessLog, { ...filters, cursor, limit: 100 }, signal), WHO)
}

/** The access log as keyset pages ("Show older entries" fetches the next). */
export const accessLogQuery = (filters: LogFilters) =>
  infiniteQueryOptions({
    queryKey: ['access', 'log', filters],
    queryFn: ({ pageParam, signal }) => fetchAccessLog(filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last: AccessLogPage) => last.nextCursor,
  })

/** A plain link: the browser downloads the CSV with its own cookie, nothing held in memory. */
export function accessLogExportUrl(filters: LogFilters): string {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(filters) as Array<[string, string | undefined]>) if (v) p.set(k, v)
  const s = p.toString()
  return s ? `${AUTH_PATHS.accessLogExport}?${s}` : AUTH_PATHS.accessLogExport
}

export type LogVerdict = LogVerdictAnswer

/** The server recomputes the log's hash chain: intact from entry N to M, or the first entry changed or removed. */
export const accessLogVerifyQuery = () =>
  queryOptions({
    queryKey: ['access', 'log', 'verify'],
    queryFn: async ({ signal }) => parseWire(ACCESS_ANSWERS.verify, await getJson(AUTH_PATHS.accessLogVerify, {}, signal), WHO),
  })
