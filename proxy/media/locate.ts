import type { Queryable } from '../db/types.ts'
import type { RequestContext } from '../http-types.ts'

/**
 * Where /api/media finds the address it fetches. The browser names a message, never a URL: the
 * server serves only media that a message it knows holds, and logs the read under that
 * message's number and customer. Two places know a message: the message index (by its number
 * and ordinal), and the history pages this sign-in was served (by number and the message's
 * ids), for a number the index has not reached yet or a page read straight from the upstream.
 */

/** A message as the browser names it: an indexed one by ordinal, a served page's by its ids. */
export type MediaRef = { number: string; ordinal: number } | { number: string; system: string | null; message: string | null }

/** What the server knows of a message's media: its address and whose message it is. */
export interface KnownMedia {
  url: string
  number: string
  /** The customer's key (contract/desk partyKey), '' when the record names none. */
  party: string
}

/** A history page's record, as far as its media goes. */
export interface ServedRecord {
  systemId: string | null
  messageId: string | null
  partyDigits: string
  mediaUrl: string | null
}

/** The index's message at (number, ordinal) when it holds media; the primary key, so one row at most. */
export function storedMedia(db: Queryable): (number: string, ordinal: number) => Promise<KnownMedia | undefined> {
  return async (number, ordinal) => {
    const r = await db.query<{ url: string; party: string }>(
      `SELECT media_url AS url, party_digits AS party FROM index_messages
        WHERE number = $1 AND ordinal = $2 AND media_url IS NOT NULL AND media_url <> ''`,
      [number, ordinal],
    )
    const row = r.rows[0]
    return row ? { url: row.url, number, party: row.party } : undefined
  }
}

export interface ServedMedia {
  /** A history page was served to this sign-in: its records' media may now be asked for by id. */
  remember: (ctx: RequestContext, number: string, records: readonly ServedRecord[]) => void
  /** Every distinct media of the records of `number` with these ids that this sign-in was served. */
  find: (ctx: RequestContext, ref: { number: string; system: string | null; message: string | null }) => KnownMedia[]
}

/**
 * The media of the history pages served to each sign-in, in memory only and bounded: at most
 * `maxEntries` records with media (the oldest go first), each kept `maxAgeMs` after the page that
 * held it was last served. A page left open longer asks again when it is reloaded.
 */
export function createServedMedia(maxEntries = 20_000, maxAgeMs = 2 * 60 * 60_000, now: () => number = Date.now): ServedMedia {
  // Key: sign-in, number, both ids (message ids repeat upstream; the pair is the index's identity too).
  type Seen = KnownMedia & { at: number }
  const entries = new Map<string, Map<string, Seen>>()
  let size = 0
  const signIn = (ctx: RequestContext) => [ctx.principal?.name ?? '', ctx.principal?.sessionId ?? '']
  const keyOf = (ctx: RequestContext, number: string, system: string | null, message: string | null) =>
    JSON.stringify([...signIn(ctx), number, system, message])
  const prune = () => {
    const t = now()
    // A Map keeps insertion order, and a record served again is moved to the end.
    for (const [key, urls] of entries) {
      const fresh = [...urls.values()].some((v) => t - v.at <= maxAgeMs)
      if (size <= maxEntries && fresh) break
      entries.delete(key)
      size -= urls.size
    }
  }
  return {
    remember: (ctx, number, records) => {
      const at = now()
      for (const r of records) {
        if (!r.mediaUrl || (r.systemId === null && r.messageId === null)) continue
        const key = keyOf(ctx, number, r.systemId, r.messageId)
        const urls = entries.get(key) ?? new Map<string, Seen>()
        entries.delete(key)
        const which = JSON.stringify([r.mediaUrl, r.partyDigits])
        if (!urls.has(which)) size++
        urls.set(which, { url: r.mediaUrl, number, party: r.partyDigits, at })
        entries.set(key, urls)
      }
      prune()
    },
    find: (ctx, ref) => {
      const urls = entries.get(keyOf(ctx, ref.number, ref.system, ref.message))
      if (!urls) return []
      const t = now()
      return [...urls.values()].filter((v) => t - v.at <= maxAgeMs).map(({ url, number, party }) => ({ url, number, party }))
    },
  }
}
