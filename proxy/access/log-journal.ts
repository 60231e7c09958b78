import { readFileSync, renameSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { Db, Queryable } from '../db/types.ts'
import { insertChained, readHead, type ChainedRow, type Row } from './access-log.ts'

/**
 * The access log's journal (PGlite only): a file in the data directory where each entry, already
 * numbered and hashed into the chain, is appended before the read it records is answered, and
 * from which the entries go into the database in batches just after. The process that holds the
 * data directory's lock is the only writer of its chain, so the chain's head can live in memory
 * and a read costs one write() instead of a turn on the database worker, where it waited behind
 * the sync's transactions.
 *
 * Durability: a line is on the disk (fdatasync, shared by the lines written together: group
 * commit in log-writer.ts) before the read it records is answered, and PGlite's commits are
 * fsynced too (pglite-worker.ts starts it with fsync on), so the journal is emptied only once its
 * entries are on the disk in the database. An answered read's entry survives kill -9 and a power
 * cut alike. Whoever opens the database next puts the journal's entries in (replayJournal),
 * before anything else reads or extends the chain.
 */

export const JOURNAL_FILE = 'access-log.journal'

/** The journal beside a PGlite database opened by openDb (its `location` is the data directory); none for PostgreSQL. */
export function journalPathOf(db: Db): string | undefined {
  const location = (db as Db & { location?: unknown }).location
  return db.engine === 'pglite' && typeof location === 'string' ? join(location, JOURNAL_FILE) : undefined
}

/** One entry as one line of JSON. */
export function journalLine(c: ChainedRow): string {
  const { row } = c
  return `${JSON.stringify({ seq: String(c.seq), prev: c.prev, hash: c.hash, row: { ...row, at: row.at.toISOString() } })}\n`
}

function parseLine(line: string): ChainedRow | null {
  try {
    const j = JSON.parse(line) as { seq?: unknown; prev?: unknown; hash?: unknown; row?: Record<string, unknown> }
    const r = j.row
    if (typeof j.seq !== 'string' || !/^\d{1,19}$/.test(j.seq) || typeof j.prev !== 'string' || typeof j.hash !== 'string') return null
    if (!r || typeof r.at !== 'string' || !r.details || typeof r.details !== 'object') return null
    const text = (k: string) => (typeof r[k] === 'string' ? r[k] : null)
    const row: Row = {
      at: new Date(r.at),
      actor: text('actor') ?? '',
      via: text('via') ?? '',
      address: text('address') ?? '',
      action: text('action') ?? '',
      number: text('number'),
      party: text('party'),
      details: r.details as Record<string, unknown>,
    }
    if (Number.isNaN(row.at.getTime())) return null
    return { seq: BigInt(j.seq), prev: j.prev, hash: j.hash, row }
  } catch {
    return null
  }
}

/**
 * The journal's complete lines, in order, up to the first that does not parse. A line cut short
 * (the machine stopped mid-write) ends the file: its read was never answered.
 */
export function readJournal(text: string): { entries: ChainedRow[]; unreadable: number } {
  const lines = text.split('\n')
  lines.pop() // after the last newline: empty, or a line cut short
  const entries: ChainedRow[] = []
  for (let i = 0; i < lines.length; i++) {
    const c = parseLine(lines[i]!)
    if (!c) return { entries, unreadable: lines.length - i }
    entries.push(c)
  }
  return { entries, unreadable: 0 }
}

const REPLAY_BATCH = 500

/**
 * Puts the journal's entries that the database lacks into it, in order, from where its head is,
 * and removes the journal. Entries that do not continue the chain (the file was edited, or the
 * head moved without them) are not inserted: the file is kept aside under a dated name and the
 * reason logged, so nothing is lost and nothing forged joins the chain. Returns how many went in.
 */
export async function replayJournal(db: Queryable, path: string, log: (line: string) => void = () => {}): Promise<number> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0
    throw err
  }
  const { entries, unreadable } = readJournal(text)
  let head = await readHead(db)
  const missing = entries.filter((c) => c.seq > head.seq)
  let inserted = 0
  let problem = unreadable ? `${unreadable} line(s) could not be read` : ''
  for (let i = 0; i < missing.length && !problem; i += REPLAY_BATCH) {
    const batch = missing.slice(i, i + REPLAY_BATCH)
    const broken = batch.findIndex(
      (c, k) => c.seq !== (k ? batch[k - 1]!.seq : head.seq) + 1n || c.prev !== (k ? batch[k - 1]!.hash : head.hash),
    )
    const linked = broken < 0 ? batch : batch.slice(0, broken)
    if (linked.length && !(await insertChained(db, linked))) {
      problem = `the chain's head moved while entry ${linked[0]!.seq} was put in`
      break
    }
    inserted += linked.length
    const last = linked[linked.length - 1]
    if (last) head = { seq: last.seq, hash: last.hash }
    if (broken >= 0) problem = `entry ${batch[broken]!.seq} does not follow entry ${head.seq} of the chain`
  }
  if (inserted) log(`access log: ${inserted} journaled entries put in the database`)
  if (problem) {
    const aside = `${path}.unplayed-${new Date().toISOString().replace(/[:.]/g, '-')}`
    renameSync(path, aside)
    log(`access log: the journal was not played to its end (${problem}); it is kept as ${aside}`)
  } else unlinkSync(path)
  return inserted
}
