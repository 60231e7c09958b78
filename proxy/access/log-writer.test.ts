import { spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, fdatasync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { openDb } from '../db/open.ts'
import { accessOnOpen } from './on-open.ts'
import { background, type Queryable } from '../db/types.ts'
import type { NewEntry } from './access-log.ts'
import { purgeAccessLog } from './log-purge.ts'
import { verifyLog } from './log-verify.ts'
import { JOURNAL_FILE, journalPathOf } from './log-journal.ts'
import { JOURNAL_PUT_IN_MS } from './access.ts'
import { createLogWriter } from './log-writer.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'

const engines = useEngines()
const T0 = Date.parse('2026-06-01T09:00:00Z')
const entry = (actor: string, over: Partial<NewEntry> = {}): NewEntry => ({
  at: new Date(T0),
  actor,
  via: 'password',
  address: '127.0.0.1',
  action: 'history.view',
  details: { number: '18323232323', start: 1, end: 10 },
  ...over,
})

/** Write transactions committed so far: each takes a transaction id, and so does this read of it. */
const xids = async (db: Queryable) => Number((await db.query<{ x: string }>('SELECT txid_current()::text AS x')).rows[0]!.x)

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'sb-journal-'))
  dirs.push(d)
  return d
}

describe.each(ENGINES)('the access-log writer on %s', (engine) => {
  test('40 reads at once: 40 entries in one unbroken chain, in fewer transactions than entries', async () => {
    const db = await engines.open(engine)
    // A journal on PGlite (as the server does), group commit on PostgreSQL.
    const w = createLogWriter(db, { journal: journalPathOf(db) })
    await w.write(entry('first'))
    await w.flush()
    const before = await xids(db)
    const seqs = await Promise.all(Array.from({ length: 40 }, (_, i) => w.write(entry(`u${i}`))))
    await w.flush()
    const transactions = (await xids(db)) - before - 1
    expect(new Set(seqs).size).toBe(40)
    expect(seqs.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 2))
    expect(transactions).toBeGreaterThan(0)
    expect(transactions).toBeLessThan(40)
    expect(await verifyLog(db)).toMatchObject({ intact: true, first: '1', last: '41' })
    await w.close()
  }, 60_000)

  test('an entry the database would refuse fails its own caller only', async () => {
    const db = await engines.open(engine)
    const w = createLogWriter(db, { journal: journalPathOf(db) })
    const results = await Promise.allSettled([w.write(entry('a')), w.write(entry('b', { via: 'not-a-via' })), w.write(entry('c'))])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    await w.flush()
    const rows = await db.query<{ actor: string }>('SELECT actor FROM access_log ORDER BY seq')
    expect(rows.rows.map((r) => r.actor)).toEqual(['a', 'c'])
    expect((await verifyLog(db)).message).toBe('Log intact: entries 1–2 verified.')
    await w.close()
  }, 60_000)

  test('the retention purge runs alone: entries written meanwhile follow its checkpoint in the chain', async () => {
    const db = await engines.open(engine)
    const w = createLogWriter(db, { journal: journalPathOf(db) })
    for (let i = 0; i < 5; i++) await w.write(entry(`old${i}`, { at: new Date(T0 + i * 86_400_000) }))
    let purged = 0
    const during: Array<Promise<string>> = []
    await w.exclusive(async () => {
      for (let i = 0; i < 3; i++) during.push(w.write(entry(`during${i}`, { at: new Date(T0 + 6 * 86_400_000) })))
      purged = await purgeAccessLog(db, 3, T0 + 6 * 86_400_000)
    })
    expect(purged).toBe(3)
    // Entries 1–5, the checkpoint 6, then the three written while the purge ran.
    expect((await Promise.all(during)).map(Number)).toEqual([7, 8, 9])
    await w.flush()
    expect(await verifyLog(db)).toMatchObject({ intact: true, first: '4', last: '9' })
    await w.close()
  }, 60_000)
})

describe('the journal (PGlite)', () => {
  test('a read waits for no sync transaction: its entry is journaled while one holds the database', async () => {
    const db = await engines.open('pglite')
    const w = createLogWriter(db, { journal: journalPathOf(db) })
    await w.write(entry('warm'))
    await w.flush()
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let syncEnded = false
    let inside!: () => void
    const started = new Promise<void>((resolve) => (inside = resolve))
    // A sync batch's transaction, held open until the read below has its entry (or 10 s pass).
    const sync = background(db).transaction(async (tx) => {
      await tx.query('SELECT count(*) FROM access_log')
      inside()
      await Promise.race([held, new Promise((resolve) => setTimeout(resolve, 10_000))])
    })
    void sync.then(() => (syncEnded = true))
    await started
    const seq = await w.write(entry('reader'))
    const endedFirst = syncEnded
    release()
    await sync
    expect(seq).toBe('2')
    expect(endedFirst).toBe(false)
    await w.flush()
    expect(await verifyLog(db)).toMatchObject({ intact: true, last: '2' })
    await w.close()
  }, 60_000)

  test("the server's reads one after another go into the table by themselves, together, once they pause", async () => {
    const db = await engines.open('pglite')
    const w = createLogWriter(db, { journal: journalPathOf(db), gatherMs: JOURNAL_PUT_IN_MS })
    await w.write(entry('warm'))
    await w.flush()
    const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM access_log')).rows[0]!.n
    const before = await xids(db)
    const started = Date.now()
    // 30 reads, each answered (its entry journaled) before the next is made, as one person paging.
    for (let i = 0; i < 30; i++) {
      await w.write(entry(`r${i}`))
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    const writing = Date.now() - started
    // No flush: they go in on their own, within a few windows.
    for (let i = 0; i < 100 && (await count()) < 31; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await count()).toBe(31)
    // Write transactions since `before` (a read-only count takes no transaction id; the xids() read itself takes one).
    const inserts = (await xids(db)) - before - 1
    // At most one insert per pause the 30 reads could have held; put in at once, each read had its own.
    expect(inserts).toBeGreaterThan(0)
    expect(inserts).toBeLessThanOrEqual(Math.ceil(writing / JOURNAL_PUT_IN_MS) + 1)
    expect(inserts).toBeLessThan(10)
    expect(await verifyLog(db)).toMatchObject({ intact: true, last: '31' })
    await w.close()
  }, 60_000)

  test('reads that never pause go in every longest wait while slow inserts go in, and the rest at their pause: not one insert each', async () => {
    const db = await engines.open('pglite')
    const maxWaitMs = 300
    const w = createLogWriter(db, { journal: journalPathOf(db), gatherMs: JOURNAL_PUT_IN_MS, maxWaitMs })
    await w.write(entry('warm'))
    await w.flush()
    const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM access_log')).rows[0]!.n
    // Each insert now takes 40 ms, as on a loaded machine: entries keep arriving while one goes in.
    await db.query(`CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.04); RETURN NULL; END $$`)
    await db.query('CREATE TRIGGER slow_insert BEFORE INSERT ON access_log FOR EACH STATEMENT EXECUTE FUNCTION slow_insert()')
    const before = await xids(db)
    const started = Date.now()
    // 20 ms apart: never the pause (JOURNAL_PUT_IN_MS) that puts entries in.
    for (let i = 0; i < 40; i++) {
      await w.write(entry(`r${i}`))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const writing = Date.now() - started
    // Write transactions since `before`, less this read's own.
    const during = (await xids(db)) - before - 1
    expect(JOURNAL_PUT_IN_MS).toBeGreaterThan(20)
    expect(writing).toBeGreaterThan(2 * maxWaitMs)
    // Without the longest wait none would have gone in yet; inserting again as soon as one ended
    // would have taken one per 40 ms.
    expect(during).toBeGreaterThan(0)
    expect(during).toBeLessThanOrEqual(Math.ceil(writing / maxWaitMs) + 1)
    // The pause: the rest go in by themselves.
    for (let i = 0; i < 100 && (await count()) < 41; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await count()).toBe(41)
    expect(await verifyLog(db)).toMatchObject({ intact: true, last: '41' })
    await w.close()
  }, 60_000)

  test('entries journaled by a process killed before they reached the database are put in when it is opened again', async () => {
    const dataDir = join(tempDir(), 'data')
    await freshPgliteDir(dataDir)
    const first = await openDb({ dataDir, onOpen: [accessOnOpen] })
    await first.query('ALTER TABLE access_log RENAME TO access_log_away')
    await first.close()
    // A server whose table is out of reach journals three reads (each answered once journaled) and dies.
    const child = `
      const { openDb } = await import(${JSON.stringify(new URL('../db/open.ts', import.meta.url).href)})
      const { createLogWriter } = await import(${JSON.stringify(new URL('./log-writer.ts', import.meta.url).href)})
      const { journalPathOf } = await import(${JSON.stringify(new URL('./log-journal.ts', import.meta.url).href)})
      const db = await openDb({ dataDir: ${JSON.stringify(dataDir)}, migrate: false })
      const w = createLogWriter(db, { journal: journalPathOf(db) })
      const at = new Date(${T0})
      const e = (actor) => ({ at, actor, via: 'password', address: '127.0.0.1', action: 'history.view', details: { number: '18323232323' } })
      const seqs = await Promise.all([w.write(e('r1')), w.write(e('r2')), w.write(e('r3'))])
      process.stdout.write(seqs.join(','))
      process.kill(process.pid, 'SIGKILL')
    `
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], { encoding: 'utf8', timeout: 60_000 })
    expect(run.signal).toBe('SIGKILL')
    expect(run.stdout).toBe('1,2,3')
    const journal = join(dataDir, JOURNAL_FILE)
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(3)
    // The machine stopped in the middle of a fourth line: that read was never answered.
    appendFileSync(journal, '{"seq":"4","prev":"ab')
    const repair = await openDb({ dataDir, migrate: false })
    await repair.query('ALTER TABLE access_log_away RENAME TO access_log')
    await repair.close()

    const lines: string[] = []
    const db = await openDb({ dataDir, log: (l) => lines.push(l), onOpen: [accessOnOpen] })
    try {
      expect(lines).toContain('access log: 3 journaled entries put in the database')
      expect(existsSync(journal)).toBe(false)
      const rows = await db.query<{ actor: string; seq: string | number }>('SELECT actor, seq FROM access_log ORDER BY seq')
      expect(rows.rows.map((r) => `${r.seq}:${r.actor}`)).toEqual(['1:r1', '2:r2', '3:r3'])
      expect(await verifyLog(db)).toMatchObject({ intact: true, first: '1', last: '3' })
      // The chain goes on from there.
      const w = createLogWriter(db, { journal: journalPathOf(db) })
      expect(await w.write(entry('next'))).toBe('4')
      await w.close()
      expect(await verifyLog(db)).toMatchObject({ intact: true, last: '4' })
    } finally {
      await db.close()
    }
  }, 120_000)

  test('a journal edited so that it no longer continues the chain is kept aside, not put in', async () => {
    const dataDir = join(tempDir(), 'data')
    await freshPgliteDir(dataDir)
    const db = await openDb({ dataDir, onOpen: [accessOnOpen] })
    const path = journalPathOf(db)!
    const w = createLogWriter(db, { journal: path })
    await w.write(entry('kept'))
    await w.close()
    const forged = {
      seq: '2',
      prev: 'f'.repeat(64),
      hash: 'e'.repeat(64),
      row: {
        at: new Date(T0).toISOString(),
        actor: 'mallory',
        via: 'password',
        address: '',
        action: 'x',
        number: null,
        party: null,
        details: {},
      },
    }
    appendFileSync(path, `${JSON.stringify(forged)}\n`)
    await db.close()
    const lines: string[] = []
    const again = await openDb({ dataDir, log: (l) => lines.push(l), onOpen: [accessOnOpen] })
    try {
      expect(lines.some((l) => /not played to its end \(entry 2 does not follow entry 1/.test(l))).toBe(true)
      expect(existsSync(path)).toBe(false)
      const rows = await again.query<{ actor: string }>('SELECT actor FROM access_log ORDER BY seq')
      expect(rows.rows.map((r) => r.actor)).toEqual(['kept'])
      expect((await verifyLog(again)).intact).toBe(true)
    } finally {
      await again.close()
    }
  }, 60_000)
})

describe('what survives a power cut (PGlite)', () => {
  test('a journaled entry resolves only after a sync begun once its line was written has ended; syncs are shared; commits are fsynced', async () => {
    const dir = tempDir()
    await freshPgliteDir(join(dir, 'data'))
    const db = await openDb({ dataDir: join(dir, 'data'), onOpen: [accessOnOpen] })
    try {
      // PGlite's own commits reach the disk before they return (its default start is fsync off).
      expect((await db.query('SHOW fsync')).rows[0]).toEqual({ fsync: 'on' })
      expect((await db.query('SHOW wal_sync_method')).rows[0]).toEqual({ wal_sync_method: 'fsync' })
      // An index build's file is synced at its commit instead of being copied into the WAL.
      expect((await db.query('SHOW wal_level')).rows[0]).toEqual({ wal_level: 'minimal' })
      const path = journalPathOf(db)!
      /** Each sync: how many lines the journal held when it began, and whether it has ended. */
      const syncs: Array<{ lines: number; ended: boolean }> = []
      const writer = createLogWriter(db, {
        journal: path,
        // Kept in the journal for the whole test, so a line's place in the file is its entry's number.
        gatherMs: 60_000,
        sync: (fd, done) => {
          const s = { lines: readFileSync(path, 'utf8').split('\n').length - 1, ended: false }
          syncs.push(s)
          fdatasync(fd, (err) => {
            s.ended = true
            done(err)
          })
        },
      })
      const onDisk: boolean[] = []
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          writer.write(entry(`u${i}`)).then((seq) => {
            onDisk.push(syncs.some((s) => s.ended && s.lines >= Number(seq)))
          }),
        ),
      )
      expect(onDisk).toEqual(Array(40).fill(true))
      // Group commit: forty entries written together share a few syncs, not one each.
      expect(syncs.length).toBeGreaterThan(0)
      expect(syncs.length).toBeLessThan(10)
      await writer.close()
    } finally {
      await db.close()
    }
  }, 60_000)
})
