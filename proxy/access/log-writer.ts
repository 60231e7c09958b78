import { closeSync, fdatasync, fsyncSync, ftruncateSync, openSync, unlinkSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Db } from '../db/types.ts'
import { appendEntries, chainRows, insertChained, readHead, storableRow, type ChainedRow, type NewEntry, type Row } from './access-log.ts'
import { journalLine, replayJournal } from './log-journal.ts'

/**
 * The access log's one writer. Each caller's promise settles once its own entry is recorded, so
 * a read can wait for its entry before answering. Two ways, by engine:
 *
 * - PostgreSQL (servers may share the chain): group commit. Entries that arrive while a write is
 *   under way (or within `gatherMs`) go in the next statement together, each caller answered
 *   when the statement holding its entry has committed. When a batch is refused, its entries are
 *   retried one by one: one bad entry never takes another's with it.
 * - PGlite with a journal (one process owns the chain; see log-journal.ts): the entry is numbered,
 *   hashed and appended to the journal file, and its promise resolves once a sync begun after
 *   that write has ended (entries written together share one fdatasync: group commit), and the entries go into
 *   the database together just after, in one statement per batch. A read then costs a write()
 *   on this thread instead of a round trip to the database worker, and never waits behind the
 *   index's sync there.
 */

interface Waiting {
  entry: NewEntry
  resolve: (seq: string) => void
  reject: (err: unknown) => void
}

export interface LogWriter {
  /** Resolves with the entry's number in the chain once it is recorded. */
  write: (entry: NewEntry) => Promise<string>
  /** Resolves when everything written so far is in the database (rejects if it cannot be put there now). */
  flush: () => Promise<void>
  /**
   * Runs `fn` with everything written so far in the database and no entry placed in the chain
   * until it ends: for work that moves the chain's head itself (the retention purge, chaining
   * old entries). Entries written meanwhile wait and follow it.
   */
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>
  /** Flushes, and lets go of the journal. */
  close: () => Promise<void>
}

export interface LogWriterOptions {
  /**
   * Group commit: how long a write waits for others (default 0). Journal: entries go into the
   * database once none has been journaled for this long (default 0: at once), or `maxWaitMs`
   * after the oldest of them was, whichever is first.
   */
  gatherMs?: number
  /** Journal only: the longest an entry waits for a pause before it is put in the database (default 20 × gatherMs). */
  maxWaitMs?: number
  maxBatch?: number
  /** The journal file (PGlite only: see log-journal.ts); without it every entry is committed before it resolves. */
  journal?: string
  log?: (line: string) => void
  /** How the journal reaches the disk (default fdatasync); a test wraps it to watch the order. */
  sync?: (fd: number, done: (err: Error | null) => void) => void
}

export function createLogWriter(db: Db, opts: LogWriterOptions = {}): LogWriter {
  return opts.journal ? journaled(db, opts.journal, opts) : groupCommit(db, opts)
}

function groupCommit(db: Db, opts: LogWriterOptions): LogWriter {
  const gatherMs = opts.gatherMs ?? 0
  const maxBatch = opts.maxBatch ?? 500
  let queue: Waiting[] = []
  let running: Promise<void> | null = null
  let timer: ReturnType<typeof setTimeout> | null = null
  /** Exclusive work under way: entries wait in the queue until it ends. */
  let paused = false

  async function commit(batch: Waiting[]): Promise<void> {
    try {
      const seqs = await appendEntries(
        db,
        batch.map((w) => w.entry),
      )
      batch.forEach((w, i) => w.resolve(seqs[i]!))
      return
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err)
        return
      }
    }
    for (const w of batch) {
      try {
        const [seq] = await appendEntries(db, [w.entry])
        w.resolve(seq!)
      } catch (err) {
        w.reject(err)
      }
    }
  }

  function start(): void {
    if (timer) clearTimeout(timer)
    timer = null
    if (running || paused || queue.length === 0) return
    const batch = queue.slice(0, maxBatch)
    queue = queue.slice(batch.length)
    running = commit(batch).finally(() => {
      running = null
      // What arrived during this write is already a group: write it at once.
      if (queue.length) start()
    })
  }

  const flush = async () => {
    for (let i = 0; i < 1_000_000 && (running || (queue.length && !paused)); i++) {
      start()
      if (running) await running
    }
  }
  return {
    write: (entry) =>
      new Promise<string>((resolve, reject) => {
        queue.push({ entry, resolve, reject })
        if (running) return
        if (queue.length >= maxBatch) start()
        else timer ??= setTimeout(start, gatherMs)
      }),
    flush,
    exclusive: async (fn) => {
      while (paused) await new Promise((resolve) => setTimeout(resolve, 10))
      await flush()
      paused = true
      try {
        return await fn()
      } finally {
        paused = false
        start()
      }
    },
    close: flush,
  }
}

/**
 * The journal file: opened on the first line (its directory synced, so the new name is on the
 * disk too), a line cut short cut back off, emptied once every line is in the database, and
 * removed at close when empty.
 */
function journalFile(path: string, sync: LogWriterOptions['sync'] & {}) {
  let fd: number | null = null
  /** Bytes in the journal: a write cut short is cut back to here. */
  let size = 0
  /** The sync under way, and the one after it (for lines written while the first runs). */
  let syncing: Promise<void> | null = null
  let nextSync: Promise<void> | null = null

  function openJournal(): number {
    const opened = openSync(path, 'a', 0o600)
    try {
      const dirFd = openSync(dirname(path), 'r')
      try {
        fsyncSync(dirFd)
      } finally {
        closeSync(dirFd)
      }
    } catch (err) {
      closeSync(opened)
      throw err
    }
    return opened
  }

  const syncNow = (): Promise<void> => {
    const started: Promise<void> = new Promise<void>((resolve, reject) => sync(fd!, (err) => (err ? reject(err) : resolve()))).finally(
      () => {
        if (syncing === started) syncing = null
      },
    )
    syncing = started
    return started
  }

  return {
    /** Appends one line whole, or throws having written nothing. */
    append(bytes: Buffer): void {
      fd ??= openJournal()
      let written = 0
      try {
        written = writeSync(fd, bytes)
      } finally {
        if (written !== bytes.length) ftruncateSync(fd, size)
      }
      // A regular file takes a write short only when the disk has no room for the rest.
      if (written !== bytes.length)
        throw Object.assign(new Error(`access log: the journal took ${written} of ${bytes.length} bytes (disk full?)`), { code: 'ENOSPC' })
      size += bytes.length
    },
    /**
     * Group commit: resolves once a sync that began after this call has ended, so every line written
     * before it is on the disk. Lines written while a sync runs share the next one.
     */
    synced(): Promise<void> {
      if (!syncing) return syncNow()
      nextSync ??= syncing
        .catch(() => {})
        .then(() => {
          nextSync = null
          return syncNow()
        })
      return nextSync
    },
    /** Every line is in the database; nothing can be appended between the caller's check and this. */
    empty(): void {
      if (fd === null || size === 0) return
      ftruncateSync(fd, 0)
      size = 0
    },
    async close(): Promise<void> {
      await Promise.all([syncing, nextSync]).catch(() => {})
      if (fd === null) return
      closeSync(fd)
      fd = null
      if (size === 0) unlinkSync(path)
    },
  }
}

/** Journaled entries go into the database once none has come for this long (flush: at once); 0 is the same turn. */
const PUT_IN_AFTER_MS = 0

/** However the entries keep coming, this many waiting start a put-in (each statement still takes maxBatch). */
const MAX_WAITING = 5_000

/** After a failed attempt to put journaled entries in the database, the next one waits this long. */
const RETRY_MS = 1000

/**
 * The journal's lines go into the database behind it: batch by batch, retried after a failure,
 * and the journal emptied once all are in. They wait for a pause in the entries (`quietMs`
 * without a new one), so the database's work lands between bursts of reads rather than in them,
 * for at most `maxWaitMs` after the oldest of them, or until MAX_WAITING wait.
 */
function puttingIn(
  db: Db,
  file: ReturnType<typeof journalFile>,
  { maxBatch, quietMs, maxWaitMs, log }: { maxBatch: number; quietMs: number; maxWaitMs: number; log: (line: string) => void },
) {
  /** Journaled, not yet in the database, in chain order. */
  const unflushed: ChainedRow[] = []
  /** When each of `unflushed` was journaled (performance.now()), in the same order. */
  const journaledAt: number[] = []
  let flushing: Promise<void> | null = null
  let lastError: unknown = null
  /** Failed attempts so far: a flush reports only those made after it was asked for. */
  let failures = 0
  /** Ends the wait before the next attempt (a flush asks for one at once). */
  let wake: (() => void) | null = null
  let closed = false
  /** Callers waiting in drain(): while any is, the next batch goes in at once. */
  let draining = 0

  /** Waits `ms`, or until woken (a flush wakes it to try at once). */
  async function nap(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      wake = resolve
      setTimeout(resolve, ms).unref()
    })
    wake = null
  }

  /**
   * Waits until no entry has been journaled for `quietMs`, the oldest waiting has waited
   * `maxWaitMs`, MAX_WAITING wait, or a reader needs them now (drain).
   */
  async function settle(): Promise<void> {
    while (!closed && draining === 0 && unflushed.length > 0 && unflushed.length < MAX_WAITING) {
      const left = Math.min(journaledAt[journaledAt.length - 1]! + quietMs, journaledAt[0]! + maxWaitMs) - performance.now()
      if (left <= 0) return
      await nap(left)
    }
  }

  /** Puts the journaled entries in the database, batch by batch, until none is left; then empties the journal. */
  async function putIn(): Promise<void> {
    // Entries go in together once they pause, and what arrives while they go in, at its next
    // pause. With 0, at once (the same turn): a reader on this process then finds a read's entry
    // in the table as soon as its answer has come (the insert is queued first). The server waits
    // (JOURNAL_PUT_IN_MS in access.ts); its readers of the table flush first.
    if (quietMs > 0) await settle()
    else await Promise.resolve()
    try {
      while (unflushed.length && !closed) {
        const batch = unflushed.slice(0, maxBatch)
        try {
          if (!(await insertChained(db, batch)))
            throw new Error(`the chain's head in the database is not entry ${batch[0]!.seq - 1n}: something else wrote to it`)
          unflushed.splice(0, batch.length)
          journaledAt.splice(0, batch.length)
          lastError = null
          // What arrived while that batch went in waits for a pause of its own, unless it fills a
          // batch: at most one insert per pause however slow the inserts become.
          if (quietMs > 0 && unflushed.length < maxBatch) await settle()
        } catch (err) {
          if (!lastError) log(`access log: journaled entries could not be put in the database yet: ${String(err)}`)
          lastError = err
          failures++
          await nap(RETRY_MS)
        }
      }
      // Everything journaled is in the database; nothing can be written between this check and the truncate.
      if (unflushed.length === 0) file.empty()
    } finally {
      flushing = null
    }
  }

  return {
    add(c: ChainedRow): void {
      unflushed.push(c)
      journaledAt.push(performance.now())
      flushing ??= putIn()
    },
    /** Resolves once every line added is in the database; throws why when an attempt made since fails. */
    async drain(): Promise<void> {
      const before = failures
      draining++
      wake?.()
      try {
        for (let i = 0; i < 1_000_000 && flushing; i++) {
          // A caller who needs the entries now hears why they are not there, rather than waiting on retries.
          if (failures > before) throw lastError instanceof Error ? lastError : new Error(String(lastError))
          await Promise.race([flushing, new Promise((resolve) => setTimeout(resolve, RETRY_MS / 4))])
        }
      } finally {
        draining--
      }
    },
    stop(): void {
      closed = true
    },
  }
}

function journaled(db: Db, path: string, opts: LogWriterOptions): LogWriter {
  const log = opts.log ?? (() => {})
  /** The chain's head as this process has written it (journal included); null until read. */
  let head: { seq: bigint; hash: string } | null = null
  let opening: Promise<void> | null = null
  /** Entries waiting for a place: the head is being read, or exclusive work runs. */
  const waiting: Array<{ row: Row; resolve: (seq: string) => void; reject: (err: unknown) => void }> = []
  let paused: Promise<unknown> | null = null
  let replayed = false
  const file = journalFile(path, opts.sync ?? fdatasync)
  const quietMs = opts.gatherMs ?? PUT_IN_AFTER_MS
  const putter = puttingIn(db, file, { maxBatch: opts.maxBatch ?? 500, quietMs, maxWaitMs: opts.maxWaitMs ?? 20 * quietMs, log })

  /** Numbers, hashes and journals one entry; throws (placing nothing) if the journal cannot take it. */
  function place(row: Row): string {
    const c = chainRows(head!, [row])[0]!
    file.append(Buffer.from(journalLine(c)))
    head = { seq: c.seq, hash: c.hash }
    putter.add(c)
    return String(c.seq)
  }

  /** Places the entry and resolves once its line is on the disk. */
  function placeDurably(row: Row): Promise<string> {
    const seq = place(row)
    return file.synced().then(() => seq)
  }

  function placeWaiting(): void {
    while (head && !paused && waiting.length) {
      const w = waiting.shift()!
      try {
        placeDurably(w.row).then(w.resolve, w.reject)
      } catch (err) {
        w.reject(err)
      }
    }
  }

  /**
   * Reads the chain's head from the database; the first time, a journal left by a process that
   * stopped goes in first (this one's own journal is empty then: nothing is placed before).
   */
  function open(): void {
    opening ??= (async () => {
      if (!replayed) await replayJournal(db, path, log)
      replayed = true
      head = await readHead(db)
    })().then(
      () => placeWaiting(),
      (err: unknown) => {
        opening = null
        for (const w of waiting.splice(0)) w.reject(err)
      },
    )
  }

  const flush = async (): Promise<void> => {
    // Entries waiting for the head to be read are written too (not those behind exclusive work: it flushes first).
    if (waiting.length && !paused && opening) await opening
    await putter.drain()
  }

  return {
    write: (entry) => {
      let row: Row
      try {
        row = storableRow(entry)
        if (head && !paused && waiting.length === 0) return placeDurably(row)
      } catch (err) {
        return Promise.reject(err)
      }
      return new Promise<string>((resolve, reject) => {
        waiting.push({ row, resolve, reject })
        if (paused) return
        if (head) placeWaiting()
        else open()
      })
    },
    flush,
    exclusive: async (fn) => {
      while (paused) await paused.catch(() => {})
      const run = (async () => {
        if (!head) {
          open()
          await opening
        }
        await flush()
        try {
          return await fn()
        } finally {
          // `fn` moved the head in the database: entries waiting take their places after it.
          head = null
          opening = null
        }
      })()
      paused = run
      try {
        return await run
      } finally {
        paused = null
        if (waiting.length) open()
      }
    },
    close: async () => {
      try {
        await flush()
      } finally {
        putter.stop()
      }
      await file.close()
    },
  }
}
