import type { SignedHead } from './signed-heads.ts'
import { createHash } from 'node:crypto'
import { currentAction, namesOf } from '../../contract/vocabulary.ts'
import { csvCell } from '../../contract/csv.ts'
import { partyForms } from '../../contract/desk/messages.ts'
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
const GENESIS = '0'.repeat(64)

/**
 * Text as the database takes it, cut on code points: a lone surrogate (half an emoji, cut or
 * sent so) is not UTF-8 and NUL is refused by both text and jsonb, and either would make
 * PostgreSQL refuse the whole statement, taking every entry of a batch with it.
 */
export function cleanText(s: string, max: number): string {
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
  if (JSON.stringify(out).length > DETAILS_MAX_CHARS) return { truncated: true, keys: Object.keys(out).slice(0, 30) }
  // What jsonb will give back (finite numbers, no undefined), so the hash is over what is stored.
  return JSON.parse(JSON.stringify(out)) as Record<string, unknown>
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

function rowOf(e: NewEntry): Row {
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

interface HeadRow extends Record<string, unknown> {
  seq: string | number
  hash: string
}

/** Locks the chain's head until the transaction ends: one writer at a time, on every server. */
async function lockHead(tx: Queryable): Promise<{ seq: bigint; hash: string }> {
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
async function appendRows(tx: Queryable, rows: readonly Row[]): Promise<string[]> {
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

interface DbEntry extends Record<string, unknown> {
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

const ENTRY_COLUMNS = 'id, seq, at, actor, via, address, action, number, party, details'

const rowFromDb = (r: DbEntry): Row => ({
  at: new Date(r.at),
  actor: r.actor,
  via: r.via,
  address: r.address,
  action: r.action,
  number: r.number,
  party: r.party,
  details: typeof r.details === 'string' ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
})

export interface LogFilters {
  user?: string
  number?: string
  party?: string
  action?: string
  from?: Date
  /** Exclusive upper bound. */
  to?: Date
}

export interface LogCursor {
  at: string
  id: string
}

export const encodeCursor = (c: LogCursor) => Buffer.from(`${c.at}|${c.id}`, 'utf8').toString('base64url')

const BIGINT_MAX = 2n ** 63n - 1n

/**
 * A cursor this server could have issued, or null. The date must be a real instant PostgreSQL
 * takes (a regular expression alone lets 2026-02-31 or month 13 through, which the database
 * then refuses with a 500), and the id must fit a bigint.
 */
export function decodeCursor(text: string): LogCursor | null {
  if (text.length > 100 || !/^[A-Za-z0-9_-]+$/.test(text)) return null
  const raw = Buffer.from(text, 'base64url').toString('utf8')
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|(\d{1,19})$/.exec(raw)
  if (!m) return null
  const at = m[1]!
  const ms = Date.parse(at)
  if (!Number.isFinite(ms) || new Date(ms).toISOString() !== at || at < '0001') return null
  if (BigInt(m[2]!) > BIGINT_MAX) return null
  return { at, id: m[2]! }
}

const toEntry = (r: DbEntry): AccessLogEntry => ({
  id: String(r.id),
  seq: r.seq === null ? null : String(r.seq),
  at: new Date(r.at).toISOString(),
  actor: r.actor,
  via: r.via,
  address: r.address,
  action: r.action,
  number: r.number,
  party: r.party,
  details: typeof r.details === 'string' ? (JSON.parse(r.details) as Record<string, unknown>) : r.details,
})

/** The party filter's forms: the text as typed, and for a phone number its digits in every form (contract/desk partyForms). */
function partyFilterForms(typed: string): string[] {
  const digits = /^[\d\s()+.-]+$/.test(typed) ? typed.replace(/\D/g, '') : ''
  return [...new Set([typed, ...(digits ? partyForms(digits) : [])])]
}

/** One keyset page, newest first over (at, id): stable while new entries arrive (no OFFSET). */
export async function listEntries(
  db: Queryable,
  f: LogFilters,
  limit: number,
  after?: LogCursor | null,
): Promise<{ entries: AccessLogEntry[]; next: LogCursor | null }> {
  const where: string[] = []
  const params: unknown[] = []
  const add = (sql: string, value: unknown) => {
    params.push(value)
    where.push(sql.replaceAll('?', `$${params.length}`))
  }
  if (f.user) add('actor = ?', f.user)
  // A read of several numbers stores them joined with commas: the filter finds each of them, one
  // alone too (a list of one), through the GIN index on the list (migration 450).
  // A number is found as it is typed too: (512) 947-4129, 5129474129 or 15129474129.
  if (f.number) add("string_to_array(number, ',') && ?::text[]", partyFilterForms(f.number))
  // A customer is found however a request named them: as typed, as digits, with or without the 1.
  // Entries keep the party as typed ("+1 (415) 555-0123"): a phone-like one is compared by its digits too.
  if (f.party)
    add(
      "(party = ANY (?::text[]) OR (party ~ '^[0-9 ().+-]+$' AND regexp_replace(party, '[^0-9]', '', 'g') = ANY (?::text[])) OR string_to_array(party, ',') && ?::text[])",
      partyFilterForms(f.party),
    )
  if (f.action) {
    // An action of the vocabulary finds the entries written under its former names too.
    const now = currentAction(f.action)
    add('action = ANY (?::text[])', now ? namesOf(now) : [f.action])
  }
  if (f.from) add('at >= ?', f.from)
  if (f.to) add('at < ?', f.to)
  if (after) {
    params.push(after.at, after.id)
    where.push(`(at, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`)
  }
  params.push(limit + 1)
  const r = await db.query<DbEntry>(
    `SELECT ${ENTRY_COLUMNS} FROM access_log
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY at DESC, id DESC LIMIT $${params.length}`,
    params,
  )
  const rows = r.rows.slice(0, limit).map(toEntry)
  const last = rows[rows.length - 1]
  return { entries: rows, next: r.rows.length > limit && last ? { at: last.at, id: last.id } : null }
}

export const CHECKPOINT_ACTION = 'log.checkpoint'

/**
 * The retention purge, the one DELETE on the access log. It removes the oldest stretch of the
 * chain whose entries are all older than the cutoff, and in the same transaction appends a
 * checkpoint entry naming the last removed entry and its hash, so what remains still verifies.
 */
export async function purgeAccessLog(db: Db, retainDays: number, now: number): Promise<number> {
  const cutoff = new Date(now - retainDays * 86_400_000)
  return db.transaction(async (tx) => {
    const head = await lockHead(tx)
    const keep = await tx.query<{ seq: string | number | null }>(
      'SELECT min(seq) AS seq FROM access_log WHERE at >= $1 AND seq IS NOT NULL',
      [cutoff],
    )
    const firstKept = keep.rows[0]?.seq
    const through = firstKept === null || firstKept === undefined ? head.seq : BigInt(firstKept) - 1n
    if (through < 1n) return 0
    const last = await tx.query<{ hash: string }>('SELECT hash FROM access_log WHERE seq = $1', [String(through)])
    const removed = await tx.query('DELETE FROM access_log WHERE seq <= $1 RETURNING 1', [String(through)])
    if (removed.rows.length === 0) return 0
    await appendRows(tx, [
      rowOf({
        at: new Date(now),
        actor: 'switchboard',
        via: 'system',
        address: '',
        action: CHECKPOINT_ACTION,
        details: { prunedThrough: Number(through), prunedHash: last.rows[0]?.hash ?? null, pruned: removed.rows.length, retainDays },
      }),
    ])
    return removed.rows.length
  })
}

export interface LogVerdict {
  intact: boolean
  /** First and last entry numbers checked (null when the log is empty). */
  first: string | null
  last: string | null
  checked: number
  /** The first entry found changed, missing or outside the chain. */
  problem: { seq: string | null; kind: 'changed' | 'missing' | 'unchained' | 'head' | 'anchor'; message: string } | null
  message: string
}

const VERIFY_BATCH = 1000

/**
 * Recomputes the chain from the start the last retention checkpoint records (or entry 1), entry
 * by entry, and checks the head. Names the first entry changed (hash mismatch), removed (a gap in
 * seq, or the newest ones gone from under the head) or added outside the chain.
 */
/**
 * A head noted outside the database (the server writes one to its own log at start and every
 * hour; logAnchor): cutting the newest entries and setting the head row back to the last one
 * left keeps a chain that verifies, so only a hash kept elsewhere shows the cut.
 */
export interface LogAnchor {
  seq: bigint
  hash: string
}

/** `N:HASH` as the server's log line gives it; null when it is not that. */
export function parseAnchor(text: string): LogAnchor | null {
  const m = /^(\d{1,18}):([0-9a-f]{64})$/.exec(text.trim())
  return m ? { seq: BigInt(m[1]!), hash: m[2]! } : null
}

/** The chain's head as an anchor (null before the first entry). */
export async function logAnchor(db: Queryable): Promise<LogAnchor | null> {
  const head = (await db.query<HeadRow>('SELECT seq, hash FROM access_log_head WHERE one')).rows[0]
  return head && BigInt(head.seq) > 0n ? { seq: BigInt(head.seq), hash: head.hash } : null
}

/** What verification holds the log against besides itself. */
export interface VerifyOptions {
  /** Heads signed with the server's key (signed-heads.ts), kept outside the database. */
  heads?: readonly SignedHead[]
  /** The retention this server is configured with (ACCESS_LOG_RETAIN_DAYS). */
  retainDays?: number
}

export async function verifyLog(db: Queryable, anchor: LogAnchor | null = null, opts: VerifyOptions = {}): Promise<LogVerdict> {
  const headRow = (await db.query<HeadRow>('SELECT seq, hash FROM access_log_head WHERE one')).rows[0]
  const fail = (
    seq: string | null,
    kind: NonNullable<LogVerdict['problem']>['kind'],
    message: string,
    first: string | null,
    last: string | null,
    checked: number,
  ): LogVerdict => ({
    intact: false,
    first,
    last,
    checked,
    problem: { seq, kind, message },
    message,
  })
  if (!headRow) return fail(null, 'head', 'The chain head (access_log_head) is missing: the log cannot be verified.', null, null, 0)
  const stray = await db.query<{ id: string | number }>('SELECT id FROM access_log WHERE seq IS NULL OR hash IS NULL ORDER BY id LIMIT 1')
  if (stray.rows[0])
    return fail(
      null,
      'unchained',
      `Entry id ${stray.rows[0].id} is not in the chain: it was added outside the log (or not yet chained).`,
      null,
      null,
      0,
    )
  const cp = await db.query<{ seq: string | number; at: Date | string; details: Record<string, unknown> | string }>(
    `SELECT seq, at, details FROM access_log WHERE action = $1 AND via = 'system' ORDER BY seq DESC LIMIT 1`,
    [CHECKPOINT_ACTION],
  )
  const cpDetails = cp.rows[0] ? (typeof cp.rows[0].details === 'string' ? JSON.parse(cp.rows[0].details) : cp.rows[0].details) : null
  const pruned = cpDetails && typeof cpDetails.prunedThrough === 'number' ? BigInt(cpDetails.prunedThrough) : 0n
  let prev = pruned > 0n && typeof cpDetails?.prunedHash === 'string' ? (cpDetails.prunedHash as string) : GENESIS
  let expected = pruned + 1n
  let checked = 0
  const firstSeq = String(expected)
  let after = 0n
  let anchorHash: string | null = null
  // The hashes the signed heads name, as the walk finds them.
  const signedSeqs = new Set((opts.heads ?? []).map((h) => h.seq))
  const hashAt = new Map<string, string>()
  let firstKeptAt: Date | null = null
  const headSeq = BigInt(headRow.seq)
  // The chain as the head read above records it: entries appended while this runs (each with the
  // head's update, in one transaction) lie past it and are looked at after the walk.
  for (;;) {
    const r = await db.query<DbEntry & { prev_hash: string; hash: string }>(
      `SELECT ${ENTRY_COLUMNS}, prev_hash, hash FROM access_log WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT ${VERIFY_BATCH}`,
      [String(after), String(headSeq)],
    )
    for (const row of r.rows) {
      const seq = BigInt(row.seq!)
      if (seq < expected) continue // before the checkpoint's start: not part of what remains to verify
      const lastOk = checked ? String(expected - 1n) : null
      if (seq > expected)
        return fail(
          String(expected),
          'missing',
          `Entry ${expected} was removed: the chain jumps from ${expected - 1n} to ${seq}.`,
          checked ? firstSeq : null,
          lastOk,
          checked,
        )
      if (row.prev_hash !== prev || entryHash(prev, String(seq), rowFromDb(row)) !== row.hash)
        return fail(
          String(seq),
          'changed',
          `Entry ${seq} was changed: its hash does not match its contents and the entry before it.`,
          checked ? firstSeq : null,
          lastOk,
          checked,
        )
      if (anchor && seq === anchor.seq) anchorHash = row.hash
      if (signedSeqs.has(String(seq))) hashAt.set(String(seq), row.hash)
      if (checked === 0) firstKeptAt = new Date(row.at)
      prev = row.hash
      expected = seq + 1n
      checked++
    }
    if (r.rows.length < VERIFY_BATCH) break
    after = BigInt(r.rows[r.rows.length - 1]!.seq!)
  }
  const last = expected - 1n
  // The checkpoint that let the walk start past 1 must be a link of the chain it vouches for:
  // appended after the entries it says were purged, and verified above. A row put in at or below
  // its own "prunedThrough" is skipped by the walk, so it would vouch for itself.
  if (pruned > 0n) {
    const cpSeq = BigInt(cp.rows[0]!.seq)
    if (cpSeq <= pruned || cpSeq > last)
      return fail(
        String(cpSeq),
        'changed',
        `Entry ${cpSeq} claims entries 1–${pruned} were purged, but it is not a verified link of the chain: the start of the log was removed or replaced.`,
        checked ? firstSeq : null,
        checked ? String(last) : null,
        checked,
      )
  }
  const range = checked ? { first: firstSeq, last: String(last) } : { first: null, last: null }
  const purgeProblem = pruned > 0n ? checkpointProblem(cp.rows[0]!.at, cpDetails, pruned, firstKeptAt, opts) : null
  if (purgeProblem) return fail(String(cp.rows[0]!.seq), 'changed', purgeProblem, range.first, range.last, checked)
  for (const h of opts.heads ?? []) {
    const seq = BigInt(h.seq)
    if (seq <= pruned) continue
    const bad =
      seq > last
        ? `Entry ${seq}, in a head signed at ${h.at}, is gone: the log ends at ${last}, so its newest entries were cut.`
        : hashAt.get(h.seq) !== h.hash
          ? `Entry ${seq} is not the entry a head signed at ${h.at} names (its hash differs): the log was rewritten from there.`
          : null
    if (bad) return fail(h.seq, 'anchor', bad, range.first, range.last, checked)
  }
  // Past the head: only entries appended since it was read. The highest one is read before the
  // head again, so a legitimate append can only raise the head above it; an entry above the head
  // now was written outside the chain.
  const above = await db.query<{ seq: string | number | null }>('SELECT max(seq) AS seq FROM access_log WHERE seq > $1', [String(headSeq)])
  const aboveSeq = above.rows[0]?.seq
  if (aboveSeq !== null && aboveSeq !== undefined) {
    const now = (await db.query<HeadRow>('SELECT seq, hash FROM access_log_head WHERE one')).rows[0]
    if (!now || BigInt(now.seq) < BigInt(aboveSeq))
      return fail(
        String(aboveSeq),
        'unchained',
        `Entry ${aboveSeq} lies past the chain head (${now?.seq ?? 'missing'}): it was added outside the log.`,
        range.first,
        range.last,
        checked,
      )
  }
  if (headSeq !== last || (checked > 0 && headRow.hash !== prev))
    return fail(
      String(last + 1n),
      'head',
      headSeq > last
        ? `Entries ${last + 1n}–${headSeq} were removed: the chain ends at ${last} but its head records ${headSeq}.`
        : `The chain head records entry ${headSeq} but the log holds ${last}: the head or the newest entries were changed.`,
      range.first,
      range.last,
      checked,
    )
  // A noted entry purged since can only be checked against the checkpoint's own hash when it was
  // the last one purged; older than that, the note proves nothing, and the log is not called intact
  // on it (a forged checkpoint "purging" past the note passed as intact).
  if (anchor && anchor.seq <= pruned) {
    if (anchor.seq < pruned || cpDetails?.prunedHash !== anchor.hash)
      return fail(
        String(anchor.seq),
        'anchor',
        anchor.seq < pruned
          ? `Entry ${anchor.seq}, noted outside the database, was purged since (entries 1–${pruned}), so the note cannot be checked: check with a newer one.`
          : `Entry ${anchor.seq} is not the entry noted outside the database (the purge checkpoint records another hash): the log was rewritten from there.`,
        range.first,
        range.last,
        checked,
      )
  }
  if (anchor && anchor.seq > pruned) {
    if (anchor.seq > last)
      return fail(
        String(anchor.seq),
        'anchor',
        `Entry ${anchor.seq}, noted outside the database as the chain's head, is gone: the log ends at ${last}, so its newest entries were cut.`,
        range.first,
        range.last,
        checked,
      )
    if (anchorHash !== anchor.hash)
      return fail(
        String(anchor.seq),
        'anchor',
        `Entry ${anchor.seq} is not the entry noted outside the database (its hash differs): the log was rewritten from there.`,
        range.first,
        range.last,
        checked,
      )
  }
  const signed = opts.heads?.length ? `, against ${opts.heads.length} signed head${opts.heads.length === 1 ? '' : 's'}` : ''
  const anchorNote = (anchor ? `, entry ${anchor.seq} as noted` : '') + signed
  const prunedNote = (pruned > 0n ? ` (1–${pruned} removed by the retention purge, as its checkpoint records)` : '') + anchorNote
  return {
    intact: true,
    ...range,
    checked,
    problem: null,
    message: checked ? `Log intact: entries ${firstSeq}–${last} verified${prunedNote}.` : 'Log intact: no entries yet.',
  }
}

/**
 * A retention checkpoint must be one the purge could have written: with the retention this server
 * keeps, leaving no entry it should have removed, and removing none written less than the retention
 * before it. Entries after a signed head were written after its time, so the newest head before
 * the purged stretch's end bounds when its last entry was written (a checkpoint forged to hide
 * minutes-old entries as "purged" passed as intact).
 */
function checkpointProblem(
  cpAt: Date | string,
  details: Record<string, unknown> | null,
  pruned: bigint,
  firstKeptAt: Date | null,
  opts: VerifyOptions,
): string | null {
  const at = new Date(cpAt).getTime()
  const days = typeof details?.retainDays === 'number' ? details.retainDays : Number.NaN
  if (!Number.isFinite(days) || days < 1)
    return `The purge checkpoint names no retention period: entries 1–${pruned} were removed outside the purge.`
  if (opts.retainDays !== undefined && days < opts.retainDays)
    return `The purge checkpoint claims a retention of ${days} days, but this server keeps ${opts.retainDays}: entries 1–${pruned} were removed early.`
  const cutoff = at - days * 86_400_000
  if (firstKeptAt && firstKeptAt.getTime() < cutoff)
    return `Entry ${pruned + 1n} is older than the purge's cut-off yet was kept, so the purge checkpoint is not the purge's: entries 1–${pruned} were removed outside it.`
  const before = (opts.heads ?? []).filter((h) => BigInt(h.seq) < pruned).at(-1)
  if (before && Date.parse(before.at) > cutoff)
    return `Entries ${BigInt(before.seq) + 1n}–${pruned} were written after ${before.at} (a signed head), less than ${days} days before the purge that claims them: they were removed outside the retention purge.`
  return null
}

export const CSV_HEADER = ['at', 'user', 'via', 'address', 'action', 'number', 'party', 'details']

export function csvLine(e: AccessLogEntry): string {
  return (
    [e.at, e.actor, e.via, e.address, e.action, e.number ?? '', e.party ?? '', JSON.stringify(e.details)].map(csvCell).join(',') + '\r\n'
  )
}
