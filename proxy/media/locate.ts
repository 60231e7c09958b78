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
  remember: (ctx: RequestContext, number: string, records: readonly ServedRecord[]) => void | Promise<void>
  /** Every distinct media of the records of `number` with these ids that this sign-in was served. */
  find: (
    ctx: RequestContext,
    ref: { number: string; system: string | null; message: string | null },
  ) => KnownMedia[] | Promise<KnownMedia[]>
  /** A forget of `number` (null: every number), in the forget's transaction: its media goes too. */
  forgetting: (tx: Queryable, number: string | null) => void | Promise<void>
}

/** Whose page it was: the user and the session (a shared ACCESS=local sign-in has neither). */
const signInOf = (ctx: RequestContext) => JSON.stringify([ctx.principal?.name ?? '', ctx.principal?.sessionId ?? ''])

/**
 * The media of the history pages served to each sign-in, in memory only and bounded: at most
 * `maxEntries` records with media (the oldest go first), each kept `maxAgeMs` after the page that
 * held it was last served. A page left open longer asks again when it is reloaded.
 */
export function createServedMedia(
  maxEntries = 20_000,
  maxAgeMs = 2 * 60 * 60_000,
  now: () => number = Date.now,
): { [K in keyof ServedMedia]: (...args: Parameters<ServedMedia[K]>) => Awaited<ReturnType<ServedMedia[K]>> } {
  // Key: sign-in, number, both ids (message ids repeat upstream; the pair is the index's identity too).
  type Seen = KnownMedia & { at: number }
  const entries = new Map<string, Map<string, Seen>>()
  let size = 0
  const keyOf = (ctx: RequestContext, number: string, system: string | null, message: string | null) =>
    JSON.stringify([signInOf(ctx), number, system, message])
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
    forgetting: (_tx, number) => {
      for (const [key, urls] of entries)
        if (number === null || [...urls.values()].some((v) => v.number === number)) {
          entries.delete(key)
          size -= urls.size
        }
    },
  }
}

/**
 * The same ledger in the database (migration 680), which every server behind one PostgreSQL
 * shares: a page served by one server, its thumbnail asked of another. Bounded as the memory one
 * is: rows older than `maxAgeMs` are not answered and are deleted, and past `maxRows` the oldest go.
 * The page's rows are written before the page is answered (api.ts awaits them). It costs a write
 * per history page that shows media, so only PostgreSQL uses it: a PGlite directory has one
 * server (its lock), and the memory ledger serves that one.
 */
export function servedMediaIn(
  db: Queryable,
  opts: { maxRows?: number; maxAgeMs?: number; pruneEveryMs?: number; now?: () => number } = {},
): ServedMedia {
  const { maxRows = 200_000, maxAgeMs = 2 * 60 * 60_000, pruneEveryMs = 5 * 60_000, now = Date.now } = opts
  let pruned = 0
  const prune = async (t: number) => {
    pruned = t
    await db.query('DELETE FROM media_served WHERE served_at < $1', [t - maxAgeMs])
    await db.query(
      `DELETE FROM media_served WHERE served_at < (SELECT served_at FROM media_served ORDER BY served_at DESC OFFSET $1 LIMIT 1)`,
      [maxRows - 1],
    )
  }
  return {
    remember: async (ctx, number, records) => {
      // One row per key: an INSERT may not update the same row twice.
      const byKey = new Map<string, ServedRecord>()
      for (const r of records)
        if (r.mediaUrl && (r.systemId !== null || r.messageId !== null))
          byKey.set(JSON.stringify([r.systemId ?? '', r.messageId ?? '', r.mediaUrl, r.partyDigits]), r)
      const rows = [...byKey.values()]
      const t = now()
      if (rows.length > 0) {
        const col = (f: (r: ServedRecord) => string) => rows.map(f)
        await db.query(
          `INSERT INTO media_served (sign_in, number, system_id, message_id, url, party, served_at)
           SELECT $1, $2, s, m, u, p, $3 FROM unnest($4::text[], $5::text[], $6::text[], $7::text[]) AS r(s, m, u, p)
           ON CONFLICT (sign_in, number, system_id, message_id, url, party) DO UPDATE SET served_at = EXCLUDED.served_at`,
          [
            signInOf(ctx),
            number,
            t,
            col((r) => r.systemId ?? ''),
            col((r) => r.messageId ?? ''),
            col((r) => r.mediaUrl!),
            col((r) => r.partyDigits),
          ],
        )
      }
      if (t - pruned >= pruneEveryMs) await prune(t)
    },
    find: async (ctx, ref) => {
      const r = await db.query<{ url: string; party: string }>(
        `SELECT url, party FROM media_served
          WHERE sign_in = $1 AND number = $2 AND system_id = $3 AND message_id = $4 AND served_at >= $5
          ORDER BY served_at, url`,
        [signInOf(ctx), ref.number, ref.system ?? '', ref.message ?? '', now() - maxAgeMs],
      )
      return r.rows.map(({ url, party }) => ({ url, number: ref.number, party }))
    },
    forgetting: async (tx, number) => {
      await tx.query('DELETE FROM media_served WHERE $1::text IS NULL OR number = $1', [number])
    },
  }
}
