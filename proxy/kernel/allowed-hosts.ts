import { z } from 'zod'

/**
 * The allow-lists that open private addresses to outbound requests (MEDIA_, WATCH_ and
 * ALERT_ALLOWED_HOSTS): one reading of an entry for all three.
 */

/**
 * `name`, `name:port`, `[v6]` or `[v6]:port`, lower-cased, or null. Anything URL parsing would
 * change (a path, a user name, a scheme) is refused rather than guessed at, since each entry opens
 * a private address to strangers' links.
 */
export function hostEntry(entry: string): string | null {
  const e = entry.toLowerCase()
  if (!e || /[/?#@\\\s]/.test(e)) return null
  try {
    const u = new URL(`http://${e}`)
    return u.host === e || `${u.host}:80` === e ? e : null
  } catch {
    return null
  }
}

/** The message for an entry that is not one, naming the variable and an example. */
export const notAHost = (variable: string, entry: string, example: string) =>
  `${variable}: "${entry.slice(0, 80)}" is not a host name or address with an optional :port (e.g. ${example})`

/** A comma-separated allow-list variable as a zod schema: each entry checked, the list lower-cased. */
export function allowedHostsVariable(variable: string, example: string) {
  return z
    .string()
    .default('')
    .transform((v, ctx) => {
      const entries = v
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean)
      for (const entry of entries) if (!hostEntry(entry)) ctx.addIssue({ code: 'custom', message: notAHost(variable, entry, example) })
      return entries.map((e) => e.toLowerCase())
    })
}
