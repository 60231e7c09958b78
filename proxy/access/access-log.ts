import { createHash } from 'node:crypto'
import type { Db, Queryable } from '../db/types.ts'

/**
 * The access log: who read what, when, from where. The application only ever INSERTs here (a
 * trigger refuses UPDATE), and the only DELETE is `purgeAccessLog`, the retention purge of
 * entries older than ACCESS_LOG_RETAIN_DAYS, which leaves a checkpoint entry behind.
 *
 * Every entry has a place in one hash chain (as Certificate Transparency's logs, RFC 6962):
 * `seq` counts up from 1 with no gaps, `prev_hash` is the previous entry's `hash`, and `hash`
 * is SHA-256 over the previous hash and the entry's canonical form. `verifyLog` recomputes it,
 * so an entry changed or removed with direct database access is named. (Whoever can rewrite
 * every row and the head can forge a new chain; the chain makes a partial edit evident.)
 *
 * This file holds the entries and the chain; log-listing.ts reads pages of them, log-purge.ts is
 * the retention purge, and log-verify.ts walks the chain.
 */

export interface AccessLogEntry {
  id: string
  seq: string | null
  at: string
  actor: string
  via: string
  address: string
  action: string
  number: string | null
  party: string | null
  details: Record<string, unknown>
}

export interface NewEntry {
  at: Date
  actor: string
  via: string
  address: string
  action: string
  details: Record<string, unknown>
}

/** Keys that could carry a secret or a message's text: never written to the log, whoever passes them. */
const FORBIDDEN_KEYS = /^(password|passwd|secret|token|authorization|auth_token|cookie|body|bodies|message|messages)$/i
/** …except a count: `{ messages: 12 }` (how many were forgotten) carries no text. */
const COUNT_KEYS = /^(message|messages)$/i
const DETAILS_MAX_CHARS = 4000
const TEXT_MAX = 300
export const GENESIS = '0'.repeat(64)
/** NUL or any surrogate code unit (a pair too: the careful walk below keeps pairs and drops lone halves). */
const UNCLEAN = /[\u0000\ud800-\udfff]/

/**
 * Text as the database takes it, cut on code points: a lone surrogate (half an emoji, cut or
 * sent so) is not UTF-8 and NUL is refused by both text and jsonb, and either would make
 * PostgreSQL refuse the whole statement, taking every entry of a batch with it.
 */
export function cleanText(s: string, max: number): string {
  // Nearly every string is short and clean: returned as it is, without a copy built code point by code point.
  if (s.length <= max && !UNCLEAN.test(s)) return s
  let out = ''
  let n = 0
  for (const ch of s) {
    if (ch === '\u0000' || (ch.length === 1 && ch >= '\ud800' && ch <= '\udfff')) continue
    if (n === max) return `${out}…`
    out += ch
    n++
  }
  return out
}

/** Drop forbidden keys (at any depth), clean keys and strings and cut long ones, so an entry stays small and writable. */
export function cleanDetails(details: Record<string, unknown>): Record<string, unknown> {
  return storedDetails(cleanTree(details))
}

function cleanTree(details: Record<string, unknown>): Record<string, unknown> {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return cleanText(v, TEXT_MAX)
    if (typeof v === 'number') return Number.isFinite(v) ? v : null
    if (typeof v === 'boolean' || v === null) return v
    if (depth > 3) return undefined
    if (Array.isArray(v)) return v.slice(0, 50).map((x) => walk(x, depth + 1) ?? null)
    if (typeof v === 'object') {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (FORBIDDEN_KEYS.test(k) && !(COUNT_KEYS.test(k) && typeof x === 'number')) continue
        const w = walk(x, depth + 1)
        const key = cleanText(k, 60)
        if (w !== undefined && key !== '') out[key] = w
      }
      return out
    }
    return undefined
  }
  return (walk(details, 0) ?? {}) as Record<string, unknown>
}

/** Cleaned details as stored: cut to their keys when too long to keep. */
function storedDetails(out: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(out)
  if (json.length > DETAILS_MAX_CHARS) return { truncated: true, keys: Object.keys(out).slice(0, 30) }
  // What jsonb will give back (finite numbers, no undefined), so the hash is over what is stored.
  return JSON.parse(json) as Record<string, unknown>
}

/** A phone number written with formatting ("+1 (800) 484-0451") is kept as its digits, which the filters match. */
const asDigits = (v: string): string => (/^[\d\s().+-]+$/.test(v) && /\d/.test(v) ? v.replace(/\D/g, '') : v)

const oneValue = (v: unknown): string | null =>
  typeof v === 'string' ? cleanText(asDigits(v.trim()), 64) || null : typeof v === 'number' && Number.isFinite(v) ? String(v) : null

/** The most members a number or party column keeps of one entry's list (a search names at most a few hundred numbers). */
const LISTED_MAX = 1000

/**
 * A comma-separated string or a list of strings, each member as oneValue keeps it, joined with
 * commas: every member, up to LISTED_MAX (cut at 400 characters, a search over 59 numbers was
 * found by its first 25 only). The columns' GIN indexes take lists of any length (migration 450).
 */
function listOf(many: unknown): string | null {
  const list = typeof many === 'string' ? many.split(',', LISTED_MAX + 1) : Array.isArray(many) ? many : []
  const members: string[] = []
  for (const x of list) {
    if (members.length === LISTED_MAX) break
    if (typeof x !== 'string') continue
    const m = cleanText(asDigits(x.trim()), 64).replaceAll(',', '')
    if (m) members.push(m)
  }
  return members.length > 0 ? members.join(',') : null
}

/**
 * The number column: `number`, or `numbers` (a comma-separated string or a list; a count is not
 * a number) stored joined with commas, which the number filter matches member by member. Also
 * looked for one level down, under `what` or `filters`, where exports and searches put them.
 */
function numberOf(d: Record<string, unknown>): string | null {
  const single = oneValue(d.number)
  if (single) return single
  const joined = listOf(d.numbers)
  if (joined) return joined
  for (const k of ['what', 'filters']) {
    const inner = d[k]
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      const found = numberOf(inner as Record<string, unknown>)
      if (found) return found
    }
  }
  return null
}

/**
 * The party column: `party` and `parties` (a read over several customers: a search's page, saved
 * views' counts) joined with commas, the digits asked for first.
 */
function partyOf(d: Record<string, unknown>): string | null {
  const one = oneValue(d.party)
  const many = listOf(d.parties)
  const direct = one && many ? listOf([one, ...many.split(',').filter((p) => p !== one)]) : (one ?? many)
  if (direct) return direct
  for (const k of ['what', 'filters']) {
    const inner = d[k]
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      const found = oneValue((inner as Record<string, unknown>).party)
      if (found) return found
    }
  }
  return null
}

/** An entry as it is written and as it is hashed. */
export interface Row {
  at: Date
  actor: string
  via: string
  address: string
  action: string
  number: string | null
  party: string | null
  details: Record<string, unknown>
}

/** The table's `via` values (its CHECK constraint). */
const VIAS = new Set(['local', 'password', 'header', 'anonymous', 'system'])

/**
 * An entry as it will be stored, refused here if the database would refuse it: an entry that
 * takes its place in the chain before it reaches the database (the journal) must be one the
 * database takes. Everything else rowOf cleans (NUL, lone surrogates, jsonb-safe details).
 */
export function storableRow(e: NewEntry): Row {
  const row = rowOf(e)
  if (!VIAS.has(row.via)) throw new Error(`access log: "${cleanText(row.via, 20)}" is not a way in (via): the entry was not written`)
  return row
}

export function rowOf(e: NewEntry): Row {
  // The number and party columns come from the details as given, before any cut: details too long
  // to keep (a search with padded parameters) emptied them, and a list longer than a kept string
  // (300 characters) lost its later numbers, and the read could not be found by them.
  const full = cleanTree(e.details)
  return {
    at: new Date(Math.trunc(e.at.getTime())),
    actor: cleanText(e.actor, 320),
    via: e.via,
    address: cleanText(e.address, 100),
    action: cleanText(e.action, 60),
    number: numberOf(e.details),
    party: partyOf(e.details),
    details: storedDetails(full),
  }
}

/** JSON with every object's keys sorted: one spelling per value, whichever engine gave it back. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(v ?? null)
}

/** SHA-256 (hex) over the previous hash and the entry's canonical form. */
export function entryHash(prev: string, seq: string, r: Row): string {
  const canonical = stableJson({
    seq,
    at: r.at.toISOString(),
    actor: r.actor,
    via: r.via,
    address: r.address,
    action: r.action,
    number: r.number,
    party: r.party,
    details: r.details,
  })
  return createHash('sha256').update(`${prev}\n${canonical}`, 'utf8').digest('hex')
}

export interface HeadRow extends Record<string, unknown> {
  seq: string | number
  hash: string
}

/** Locks the chain's head until the transaction ends: one writer at a time, on every server. */
export async function lockHead(tx: Queryable): Promise<{ seq: bigint; hash: string }> {
  const r = await tx.query<HeadRow>('SELECT seq, hash FROM access_log_head WHERE one FOR UPDATE')
  const head = r.rows[0]
  if (!head) throw new Error('access_log_head has no row: the chain cannot be extended (was it deleted?)')
  return { seq: BigInt(head.seq), hash: head.hash }
}

/** An entry with its place in the chain: its number, the hash before it and its own. */
export interface ChainedRow {
  seq: bigint
  prev: string
  hash: string
  row: Row
}

/** `rows` numbered and hashed after `head`, in order. */
export function chainRows(head: { seq: bigint; hash: string }, rows: readonly Row[]): ChainedRow[] {
  let seq = head.seq
  let prev = head.hash
  return rows.map((row) => {
    seq += 1n
    const hash = entryHash(prev, String(seq), row)
    const c = { seq, prev, hash, row }
    prev = hash
    return c
  })
}

/** The INSERT's tuples and values for entries already placed in the chain. */
function insertValues(entries: readonly ChainedRow[], casts: boolean) {
  const values: unknown[] = []
  const tuples: string[] = []
  // In an INSERT … VALUES the columns give the types; in a SELECT over VALUES each value says its own.
  const TYPES = ['timestamptz', 'text', 'text', 'text', 'text', 'text', 'text', 'jsonb', 'bigint', 'text', 'text']
  for (const { seq, prev, hash, row: r } of entries) {
    const b = values.length
    tuples.push(`(${TYPES.map((t, i) => `$${b + i + 1}${casts || t === 'jsonb' ? `::${t}` : ''}`).join(', ')})`)
    values.push(r.at, r.actor, r.via, r.address, r.action, r.number, r.party, JSON.stringify(r.details), String(seq), prev, hash)
  }
  return { values, tuples }
}

/** The rows numbered and hashed after `head`: the INSERT's values and what the head becomes. */
function chained(head: { seq: bigint; hash: string }, rows: readonly Row[], casts: boolean) {
  const entries = chainRows(head, rows)
  const last = entries[entries.length - 1]
  return {
    ...insertValues(entries, casts),
    seqs: entries.map((e) => String(e.seq)),
    next: last ? { seq: last.seq, hash: last.hash } : head,
  }
}

const LOG_COLUMNS = 'at, actor, via, address, action, number, party, details, seq, prev_hash, hash'

/** Numbers, hashes and inserts rows after the head; the caller holds the transaction. Returns their seqs. */
export async function appendRows(tx: Queryable, rows: readonly Row[]): Promise<string[]> {
  const c = chained(await lockHead(tx), rows, false)
  await tx.query(`INSERT INTO access_log (${LOG_COLUMNS}) VALUES ${c.tuples.join(', ')}`, c.values)
  await tx.query('UPDATE access_log_head SET seq = $1, hash = $2 WHERE one', [String(c.next.seq), c.next.hash])
  return c.seqs
}

/** The head this process last wrote, per database: a guess the append statement checks. */
const knownHeads = new WeakMap<Db, { seq: bigint; hash: string }>()

/**
 * Entries already placed in the chain (consecutive, the first one's `prev` the head it follows),
 * in one statement: the head moves from the one before the first entry to the last entry only
 * if it is still there (another writer, on another server or a purge, makes it insert nothing),
 * and the entries go in only if it moved. True once they are committed; false if the head was
 * elsewhere (nothing written).
 */
export async function insertChained(db: Queryable, entries: readonly ChainedRow[]): Promise<boolean> {
  const first = entries[0]
  const last = entries[entries.length - 1]
  if (!first || !last) return true
  const c = insertValues(entries, true)
  const n = c.values.length
  const r = await db.query<{ seq: string | number }>(
    `WITH moved AS (
       UPDATE access_log_head SET seq = $${n + 1}, hash = $${n + 2} WHERE one AND seq = $${n + 3} AND hash = $${n + 4} RETURNING 1)
     INSERT INTO access_log (${LOG_COLUMNS})
     SELECT * FROM (VALUES ${c.tuples.join(', ')}) AS v(${LOG_COLUMNS}) WHERE EXISTS (SELECT 1 FROM moved)
     RETURNING seq`,
    [...c.values, String(last.seq), last.hash, String(first.seq - 1n), first.prev],
  )
  return r.rows.length === entries.length
}

/**
 * Several entries in one place of the chain, in one statement (see insertChained), from the
 * head this process last wrote. Resolves with their entry numbers (seq) once committed; rejects,
 * writing none of them, if any one is refused. A head that moved is read again; after a few
 * misses the writer takes the head's lock instead.
 */
export async function appendEntries(db: Db, entries: readonly NewEntry[]): Promise<string[]> {
  if (entries.length === 0) return []
  const rows = entries.map(rowOf)
  for (let attempt = 0; attempt < 3; attempt++) {
    const placed = chainRows(knownHeads.get(db) ?? (await readHead(db)), rows)
    if (await insertChained(db, placed)) {
      const last = placed[placed.length - 1]!
      knownHeads.set(db, { seq: last.seq, hash: last.hash })
      return placed.map((e) => String(e.seq))
    }
    knownHeads.delete(db)
  }
  const seqs = await db.transaction((tx) => appendRows(tx, rows))
  knownHeads.delete(db)
  return seqs
}

export async function readHead(db: Queryable): Promise<{ seq: bigint; hash: string }> {
  const head = (await db.query<HeadRow>('SELECT seq, hash FROM access_log_head WHERE one')).rows[0]
  if (!head) throw new Error('access_log_head has no row: the chain cannot be extended (was it deleted?)')
  return { seq: BigInt(head.seq), hash: head.hash }
}

export async function insertEntry(db: Db, e: NewEntry): Promise<string> {
  const [seq] = await appendEntries(db, [e])
  return seq!
}

export interface DbEntry extends Record<string, unknown> {
  id: string | number
  seq: string | number | null
  at: Date | string
  actor: string
  via: string
  address: string
  action: string
  number: string | null
  party: string | null
  details: Record<string, unknown> | string
}

export const ENTRY_COLUMNS = 'id, seq, at, actor, via, address, action, number, party, details'

export const rowFromDb = (r: DbEntry): Row => ({
  at: new Date(r.at),
  actor: r.actor,
  via: r.via,
  address: r.address,
  action: r.action,
  number: r.number,
  party: r.party,
  details: typeof r.details === 'string' ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
})
