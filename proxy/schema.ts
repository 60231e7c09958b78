import { z } from 'zod'
import { invalid, ProxyError } from './errors.ts'
import { safeFieldName } from './http.ts'

/**
 * The request schemas of the route table, in zod: each row declares its query string (always:
 * a strict object, so an unknown parameter is refused naming itself), its JSON body where it
 * reads one, and its path parameters. Fastify validates them (fastify-type-provider-zod's
 * validatorCompiler) before the handler runs, and the handler gets the parsed, typed values.
 * A failure leaves through the app's one error handler as the envelope, worded here: the
 * schema's own message, naming the field.
 */

export interface RouteSchema {
  /** Every route declares its query string; `NO_PARAMS` says it takes none. */
  querystring: z.ZodType
  /** A JSON body (or, for the upstream operations, their form fields), read before validation. */
  body?: z.ZodType
  /** The `:name` segments of the path. */
  params?: z.ZodType
}

/** What a handler gets: each declared part, parsed (`unknown` where the row declares none). */
export interface RouteInput<Q = unknown, B = unknown, P = unknown> {
  query: Q
  body: B
  params: P
}

/**
 * The query string as the handlers have always read it (URLSearchParams: `+` is a space, a bad
 * escape stays as sent), into an object with no prototype; a name sent twice holds an array,
 * which no field schema takes, so a repeat is refused ("sent more than once"). Nothing is
 * stripped: URLSearchParams drops one leading `?` of a string, so `/path??number=1` was read as
 * number=1 while `new URL(…).searchParams` (and a log entry made from it) held "?number".
 */
export function parseQueryString(text: string): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>
  // An empty pair first: the constructor then has no leading `?` to drop (an empty pair is skipped).
  for (const [k, v] of new URLSearchParams(`&${text}`)) {
    const had = out[k]
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v]
  }
  return out
}

const unknownParameter = (known: readonly string[]) => (name: string) =>
  `Unknown parameter "${name}". ${known.length ? `Allowed here: ${known.join(', ')}.` : 'This path takes none.'}`

/**
 * A query string of exactly these names. `unknown` words the refusal of any other name (the
 * field is that name); by default it lists the names allowed.
 */
export function query<S extends z.ZodRawShape>(shape: S, opts: { unknown?: (name: string) => string } = {}) {
  const unknown = opts.unknown ?? unknownParameter(Object.keys(shape))
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? unknown(safeFieldName(String(iss.keys[0]))) : undefined),
  })
}

/** A route that takes no query parameters (its body, if any, is declared apart). */
export const NO_QUERY = query({})
/** The explicit "takes no parameters" of a row. */
export const NO_PARAMS = { querystring: NO_QUERY } as const satisfies RouteSchema

/** A JSON body of exactly these fields; `unknown` words the refusal of any other (the field is its name). */
export function jsonBody<S extends z.ZodRawShape>(shape: S, unknown: (name: string) => string) {
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? unknown(safeFieldName(String(iss.keys[0]))) : undefined),
  })
}

/**
 * A parameter read by a function the room already has: it gets the value as sent (`undefined`
 * when absent) and throws the envelope's 400 naming the field, which becomes this schema's issue
 * at that field. A query name sent twice arrives as an array and is refused as a repeat.
 */
export function param<T>(read: (value: string | undefined) => T) {
  return z
    .unknown()
    .optional()
    .transform((v, ctx) => {
      if (v !== undefined && typeof v !== 'string') {
        ctx.addIssue({ code: 'custom', message: 'was sent more than once or is not text.' })
        return z.NEVER
      }
      return checked(read)(v, ctx)
    })
}

/**
 * A query string of these names, each at most once, its values read by the route's handler:
 * for rooms whose handlers still read their own values.
 */
export const names = (...keys: string[]) => query(Object.fromEntries(keys.map((k) => [k, param((v) => v)])))

/** The same over a whole part (a body's fields checked together, a cross-field rule). */
export function checked<I, T>(read: (value: I) => T) {
  return (v: I, ctx: z.core.$RefinementCtx): T => {
    try {
      return read(v)
    } catch (err) {
      if (!(err instanceof ProxyError) || !err.body.field) throw err
      ctx.addIssue({ code: 'custom', message: err.body.message, params: { field: err.body.field } })
      return z.NEVER
    }
  }
}

/** One issue as fastify-type-provider-zod hands it to the error handler. */
interface SchemaIssue {
  keyword: string
  instancePath: string
  message: string
  params?: { keys?: unknown; params?: { field?: unknown } }
}

/** A Fastify validation failure: the issues and which part of the request they are about. */
export interface ValidationFailure {
  validation: SchemaIssue[]
  validationContext?: string
}

export const isValidationFailure = (err: unknown): err is ValidationFailure =>
  Array.isArray((err as { validation?: unknown } | null)?.validation)

/**
 * The envelope's 400 for a schema's refusal: an unknown name first (as the hand-written readers
 * did), then a name sent twice, then the first issue in the schema's order. The message is the
 * schema's; one that does not name its field is prefixed with it.
 */
export function schemaProblem(err: ValidationFailure, raw: unknown): ProxyError {
  const part = err.validationContext === 'querystring' ? 'query' : (err.validationContext ?? 'body')
  const issues = err.validation
  const unknown = issues.find((i) => i.keyword === 'unrecognized_keys')
  if (unknown) {
    const keys = Array.isArray(unknown.params?.keys) ? (unknown.params.keys as unknown[]) : []
    return invalid(safeFieldName(String(keys[0] ?? part)), unknown.message)
  }
  const fieldOf = (i: SchemaIssue) => {
    const own = i.params?.params?.field
    if (typeof own === 'string') return own
    return i.instancePath.split('/')[1] || part
  }
  const values = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {}
  if (part === 'query') {
    const repeated = issues.map(fieldOf).find((f) => Array.isArray(values[f]))
    if (repeated) return invalid(repeated, `${repeated} was sent more than once.`)
  }
  const first = issues[0]
  if (!first) return invalid(part, `The ${part} is not valid.`)
  const field = safeFieldName(fieldOf(first))
  return invalid(field, first.message.includes(field) ? first.message : `${field}: ${first.message}`)
}
