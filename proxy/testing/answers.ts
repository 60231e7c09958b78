import { safeParse } from 'zod/v4/core'
import type { RouteSpec } from '../http-types.ts'

/**
 * Holds the answers tests get to what their route rows declare (`response`, a schema from
 * contract/ that the browser parses with too): a test that calls a route through `heldAnswers`
 * fails when a 2xx answer strays from its schema, and can say which declared answers it checked.
 */

/** Whether a request path (no query) is a row's path: a `:name` segment matches any one segment. */
function samePath(declared: string, path: string): boolean {
  const d = declared.split('/')
  const p = path.split('/')
  return d.length === p.length && d.every((seg, i) => seg === p[i] || (seg.startsWith(':') && p[i] !== ''))
}

export interface HeldAnswers {
  /** Checks one answer; throws, naming the fields, when a declared 2xx answer does not match. */
  hold: (method: string, path: string, status: number, body: () => unknown) => void
  /** `METHOD path` of each row whose answer was checked at least once. */
  held: Set<string>
  /** The rows under `prefix` that declare an answer and were never checked. */
  unheld: (prefix: string) => string[]
}

export function heldAnswers(routes: () => readonly RouteSpec[]): HeldAnswers {
  const held = new Set<string>()
  return {
    held,
    hold: (method, path, status, body) => {
      if (status < 200 || status > 299) return
      const bare = path.split('?')[0]!
      const row =
        routes().find((r) => r.method === method && r.path === bare) ?? routes().find((r) => r.method === method && samePath(r.path, bare))
      if (!row?.response) return
      const parsed = safeParse(row.response, body())
      if (!parsed.success)
        throw new Error(`${method} ${path} answered ${status}, not as its row declares: ${JSON.stringify(parsed.error.issues)}`)
      held.add(`${row.method} ${row.path}`)
    },
    unheld: (prefix) =>
      routes()
        .filter((r) => r.response && r.path.startsWith(prefix))
        .map((r) => `${r.method} ${r.path}`)
        .filter((k) => !held.has(k)),
  }
}
