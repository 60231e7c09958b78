import type * as z from 'zod/mini'
import { stringifySearch, withoutDefaults, type SearchInput } from './route-params'

/**
 * Addresses written by hand for the links a table row holds (components/plain-link.tsx), as the
 * router's Link would write them; src/app/row-links.test.tsx checks them against the router. Only
 * the pages' own chunks import this, so it stays out of the code loaded up front.
 */

/** A path pattern's `$name`s filled in as the router writes them (each encoded whole). */
export function pathHref(pattern: string, params: Readonly<Record<string, string | number>>): string {
  return pattern.replace(/\$(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')))
}

const DEFAULTS = new WeakMap<object, Record<string, unknown>>()

/**
 * A link's query as the router writes it for a route whose search goes through
 * stripDefaults(schema): its defaults left out, the rest as stringifySearch writes it (with `?`,
 * or '' when nothing is left).
 */
export function linkSearch<T extends z.ZodMiniType<Record<string, unknown>>>(schema: T, search: SearchInput<z.output<T>>): string {
  let defaults = DEFAULTS.get(schema)
  if (!defaults) DEFAULTS.set(schema, (defaults = schema.parse({})))
  return stringifySearch(withoutDefaults(search, defaults))
}
