import type { SignedHead } from './signed-heads.ts'
import type { Queryable } from '../db/types.ts'
import { ENTRY_COLUMNS, GENESIS, entryHash, rowFromDb, type DbEntry, type HeadRow } from './access-log.ts'
import { CHECKPOINT_ACTION } from './log-purge.ts'

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

type Finding = NonNullable<LogVerdict['problem']>

/** The newest retention checkpoint: where the walk starts, and what it claims was purged. */
interface Checkpoint {
  seq: bigint
  at: Date | string
  details: Record<string, unknown> | null
  /** Entries 1 to this were purged (0n with no checkpoint). */
  pruned: bigint
}

async function readCheckpoint(db: Queryable): Promise<Checkpoint | null> {
  const cp = await db.query<{ seq: string | number; at: Date | string; details: Record<string, unknown> | string }>(
    `SELECT seq, at, details FROM access_log WHERE action = $1 AND via = 'system' ORDER BY seq DESC LIMIT 1`,
    [CHECKPOINT_ACTION],
  )
  const row = cp.rows[0]
  if (!row) return null
  const details = (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as Record<string, unknown> | null
  const pruned = details && typeof details.prunedThrough === 'number' ? BigInt(details.prunedThrough) : 0n
  return { seq: BigInt(row.seq), at: row.at, details, pruned }
}

/** What the walk saw: how far the chain verified, and the hashes the outside notes are checked against. */
interface Walk {
  firstSeq: string
  /** The next entry the chain needs (the last verified is one less). */
  expected: bigint
  checked: number
  prev: string
  anchorHash: string | null
  hashAt: Map<string, string>
  firstKeptAt: Date | null
}

/**
 * Recomputes the chain entry by entry from the checkpoint's start (or entry 1) up to the head read
 * at the start: entries appended while this runs (each with the head's update, in one transaction)
 * lie past it and are looked at after the walk.
 */
async function walkChain(
  db: Queryable,
  cp: Checkpoint | null,
  headSeq: bigint,
  anchor: LogAnchor | null,
  signedSeqs: ReadonlySet<string>,
): Promise<{ walk: Walk; finding: Finding | null }> {
  const pruned = cp?.pruned ?? 0n
  const prunedHash = cp?.details?.prunedHash
  const walk: Walk = {
    firstSeq: String(pruned + 1n),
    expected: pruned + 1n,
    checked: 0,
    prev: pruned > 0n && typeof prunedHash === 'string' ? prunedHash : GENESIS,
    anchorHash: null,
    hashAt: new Map(),
    firstKeptAt: null,
  }
  let after = 0n
  for (;;) {
    const r = await db.query<DbEntry & { prev_hash: string; hash: string }>(
      `SELECT ${ENTRY_COLUMNS}, prev_hash, hash FROM access_log WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT ${VERIFY_BATCH}`,
      [String(after), String(headSeq)],
    )
    for (const row of r.rows) {
      const seq = BigInt(row.seq!)
      if (seq < walk.expected) continue // before the checkpoint's start: not part of what remains to verify
      if (seq > walk.expected) {
        const message = `Entry ${walk.expected} was removed: the chain jumps from ${walk.expected - 1n} to ${seq}.`
        return { walk, finding: { seq: String(walk.expected), kind: 'missing', message } }
      }
      if (row.prev_hash !== walk.prev || entryHash(walk.prev, String(seq), rowFromDb(row)) !== row.hash) {
        const message = `Entry ${seq} was changed: its hash does not match its contents and the entry before it.`
        return { walk, finding: { seq: String(seq), kind: 'changed', message } }
      }
      if (anchor && seq === anchor.seq) walk.anchorHash = row.hash
      if (signedSeqs.has(String(seq))) walk.hashAt.set(String(seq), row.hash)
      if (walk.checked === 0) walk.firstKeptAt = new Date(row.at)
      walk.prev = row.hash
      walk.expected = seq + 1n
      walk.checked++
    }
    if (r.rows.length < VERIFY_BATCH) return { walk, finding: null }
    after = BigInt(r.rows[r.rows.length - 1]!.seq!)
  }
}

/**
 * The checkpoint that let the walk start past 1 must be a link of the chain it vouches for:
 * appended after the entries it says were purged, and verified by the walk. A row put in at or
 * below its own "prunedThrough" is skipped by the walk, so it would vouch for itself. It must also
 * be one the purge could have written (checkpointProblem).
 */
function checkpointFinding(cp: Checkpoint | null, walk: Walk, opts: VerifyOptions): Finding | null {
  if (!cp || cp.pruned === 0n) return null
  const last = walk.expected - 1n
  if (cp.seq <= cp.pruned || cp.seq > last) {
    const message = `Entry ${cp.seq} claims entries 1–${cp.pruned} were purged, but it is not a verified link of the chain: the start of the log was removed or replaced.`
    return { seq: String(cp.seq), kind: 'changed', message }
  }
  const problem = checkpointProblem(cp.at, cp.details, cp.pruned, walk.firstKeptAt, opts)
  return problem ? { seq: String(cp.seq), kind: 'changed', message: problem } : null
}

/** Every head signed with the server's key names an entry the walk found, with the same hash. */
function signedHeadsFinding(heads: readonly SignedHead[], pruned: bigint, walk: Walk): Finding | null {
  const last = walk.expected - 1n
  for (const h of heads) {
    const seq = BigInt(h.seq)
    if (seq <= pruned) continue
    const bad =
      seq > last
        ? `Entry ${seq}, in a head signed at ${h.at}, is gone: the log ends at ${last}, so its newest entries were cut.`
        : walk.hashAt.get(h.seq) !== h.hash
          ? `Entry ${seq} is not the entry a head signed at ${h.at} names (its hash differs): the log was rewritten from there.`
          : null
    if (bad) return { seq: h.seq, kind: 'anchor', message: bad }
  }
  return null
}

/**
 * Past the head: only entries appended since it was read. The highest one is read before the head
 * again, so a legitimate append can only raise the head above it; an entry above the head now was
 * written outside the chain.
 */
async function pastHeadFinding(db: Queryable, headSeq: bigint): Promise<Finding | null> {
  const above = await db.query<{ seq: string | number | null }>('SELECT max(seq) AS seq FROM access_log WHERE seq > $1', [String(headSeq)])
  const aboveSeq = above.rows[0]?.seq
  if (aboveSeq === null || aboveSeq === undefined) return null
  const now = (await db.query<HeadRow>('SELECT seq, hash FROM access_log_head WHERE one')).rows[0]
  if (now && BigInt(now.seq) >= BigInt(aboveSeq)) return null
  const message = `Entry ${aboveSeq} lies past the chain head (${now?.seq ?? 'missing'}): it was added outside the log.`
  return { seq: String(aboveSeq), kind: 'unchained', message }
}

/** The head row names the walk's last entry and its hash. */
function headFinding(headRow: HeadRow, walk: Walk): Finding | null {
  const headSeq = BigInt(headRow.seq)
  const last = walk.expected - 1n
  if (headSeq === last && (walk.checked === 0 || headRow.hash === walk.prev)) return null
  const message =
    headSeq > last
      ? `Entries ${last + 1n}–${headSeq} were removed: the chain ends at ${last} but its head records ${headSeq}.`
      : `The chain head records entry ${headSeq} but the log holds ${last}: the head or the newest entries were changed.`
  return { seq: String(last + 1n), kind: 'head', message }
}

/**
 * A head noted outside the database names an entry the walk found, with the same hash. A noted
 * entry purged since can only be checked against the checkpoint's own hash when it was the last
 * one purged; older than that, the note proves nothing, and the log is not called intact on it (a
 * forged checkpoint "purging" past the note passed as intact).
 */
function anchorFinding(anchor: LogAnchor | null, cp: Checkpoint | null, walk: Walk): Finding | null {
  if (!anchor) return null
  const pruned = cp?.pruned ?? 0n
  const last = walk.expected - 1n
  const at = String(anchor.seq)
  if (anchor.seq <= pruned) {
    if (anchor.seq < pruned)
      return {
        seq: at,
        kind: 'anchor',
        message: `Entry ${anchor.seq}, noted outside the database, was purged since (entries 1–${pruned}), so the note cannot be checked: check with a newer one.`,
      }
    if (cp?.details?.prunedHash !== anchor.hash)
      return {
        seq: at,
        kind: 'anchor',
        message: `Entry ${anchor.seq} is not the entry noted outside the database (the purge checkpoint records another hash): the log was rewritten from there.`,
      }
    return null
  }
  if (anchor.seq > last)
    return {
      seq: at,
      kind: 'anchor',
      message: `Entry ${anchor.seq}, noted outside the database as the chain's head, is gone: the log ends at ${last}, so its newest entries were cut.`,
    }
  if (walk.anchorHash !== anchor.hash)
    return {
      seq: at,
      kind: 'anchor',
      message: `Entry ${anchor.seq} is not the entry noted outside the database (its hash differs): the log was rewritten from there.`,
    }
  return null
}

/**
 * Recomputes the chain from the start the last retention checkpoint records (or entry 1), entry
 * by entry, and checks the head. Names the first entry changed (hash mismatch), removed (a gap in
 * seq, or the newest ones gone from under the head) or added outside the chain, and holds the
 * log to the heads noted or signed outside the database.
 */
export async function verifyLog(db: Queryable, anchor: LogAnchor | null = null, opts: VerifyOptions = {}): Promise<LogVerdict> {
  const headRow = (await db.query<HeadRow>('SELECT seq, hash FROM access_log_head WHERE one')).rows[0]
  const failed = (problem: Finding, walk?: Walk): LogVerdict => {
    const verified = walk && walk.checked > 0
    const range = verified ? { first: walk.firstSeq, last: String(walk.expected - 1n) } : { first: null, last: null }
    return { intact: false, ...range, checked: walk?.checked ?? 0, problem, message: problem.message }
  }
  if (!headRow)
    return failed({ seq: null, kind: 'head', message: 'The chain head (access_log_head) is missing: the log cannot be verified.' })
  const stray = await db.query<{ id: string | number }>('SELECT id FROM access_log WHERE seq IS NULL OR hash IS NULL ORDER BY id LIMIT 1')
  if (stray.rows[0])
    return failed({
      seq: null,
      kind: 'unchained',
      message: `Entry id ${stray.rows[0].id} is not in the chain: it was added outside the log (or not yet chained).`,
    })
  const cp = await readCheckpoint(db)
  const headSeq = BigInt(headRow.seq)
  const { walk, finding } = await walkChain(db, cp, headSeq, anchor, new Set((opts.heads ?? []).map((h) => h.seq)))
  const pruned = cp?.pruned ?? 0n
  const problem =
    finding ??
    checkpointFinding(cp, walk, opts) ??
    signedHeadsFinding(opts.heads ?? [], pruned, walk) ??
    (await pastHeadFinding(db, headSeq)) ??
    headFinding(headRow, walk) ??
    anchorFinding(anchor, cp, walk)
  if (problem) return failed(problem, walk)
  const last = walk.expected - 1n
  const signed = opts.heads?.length ? `, against ${opts.heads.length} signed head${opts.heads.length === 1 ? '' : 's'}` : ''
  const anchorNote = (anchor ? `, entry ${anchor.seq} as noted` : '') + signed
  const prunedNote = (pruned > 0n ? ` (1–${pruned} removed by the retention purge, as its checkpoint records)` : '') + anchorNote
  return {
    intact: true,
    ...(walk.checked ? { first: walk.firstSeq, last: String(last) } : { first: null, last: null }),
    checked: walk.checked,
    problem: null,
    message: walk.checked ? `Log intact: entries ${walk.firstSeq}–${last} verified${prunedNote}.` : 'Log intact: no entries yet.',
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
