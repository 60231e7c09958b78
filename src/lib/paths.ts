/**
 * Every route's path builder, in one place (bulletproof-react's `paths.ts`). Query strings are
 * built with URLSearchParams, path segments with encodeURIComponent: a number or party from data
 * can never change which route a link opens.
 */

const qs = (params: Record<string, string | number | null | undefined>) => {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') p.set(k, String(v))
  const s = p.toString()
  return s ? `?${s}` : ''
}

export type Query = Record<string, string | number | null | undefined>

export const paths = {
  numbers: () => '/',
  history: (number: string, tid: string, extra: Query = {}) => `/numbers/${encodeURIComponent(number)}${qs({ tid, ...extra })}`,
  thread: (number: string, tid: string, party: string, extra: Query = {}) =>
    `/numbers/${encodeURIComponent(number)}/thread${qs({ tid, party, ...extra })}`,
  message: (number: string, ordinal: number, extra: Query = {}) => `/numbers/${encodeURIComponent(number)}/messages/${ordinal}${qs(extra)}`,
  search: (params: Query = {}) => `/search${qs(params)}`,
  charts: (params: Query = {}) => `/charts${qs(params)}`,
  index: () => '/index',
  signIn: (next?: string) => `/signin${qs({ next })}`,
  users: () => '/admin/users',
  accessLog: () => '/admin/access-log',
  needsReply: (params: Query = {}) => `/desk/needs-reply${qs(params)}`,
  optOuts: (params: Query = {}) => `/desk/opt-outs${qs(params)}`,
  customer: (party: string | null = null, extra: Query = {}) => `/desk/customer${qs({ party, ...extra })}`,
  quietHours: (params: Query = {}) => `/desk/quiet-hours${qs(params)}`,
  segments: (params: Query = {}) => `/desk/segments${qs(params)}`,
}

/** Kept for callers written before paths.ts (the numbers columns). */
export function historyPath(number: string, tid: string, extra: Record<string, string> = {}) {
  return paths.history(number, tid, extra)
}
