import { statfsSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import type { CopyData, MigratableDb, ScriptRunner } from './migrate.ts'
import type { types as PgTypes } from '@electric-sql/pglite'
import { DISK_FULL_CODE, fromWire, type Ready, type Reply, type Request, type Rows, type WorkerInit } from './pglite-protocol.ts'
import { readRows } from './pglite-rows.ts'
import type { Lane } from './types.ts'
import { spawnWorker, wasmModules } from './pglite-spawn.ts'
import { later } from './turns.ts'

/**
 * PGlite in a worker thread, seen from the server's thread as the Db interface. PGlite has one
 * connection, so this side schedules: one unit (a statement, or a whole transaction) runs in the
 * worker at a time, and while a transaction is open only its statements are sent. Units wait in
 * two lanes: interactive (requests) before background (the index's sync and bulk loads, exports),
 * with every so many interactive units one background unit, so neither lane starves.
 */

export interface PgliteWorkerOptions {
  dataDir: string
  /**
   * How long an interactive unit may wait for its turn (ms; 0 = no bound). Past it the caller
   * gets the error PostgreSQL's statement_timeout raises (code 57014): a flood answers "busy"
   * instead of queueing for ever. PGlite cannot stop a statement once it runs.
   */
  queueTimeoutMs?: number
  log?: (line: string) => void
  /** The test seam (DiskFaults): never set by the server's own configuration. */
  diskFaults?: boolean
}

/** Interactive units run before a waiting background one at most this many times in a row. */
const INTERACTIVE_BURST = 8

/**
 * Single statements sent to the worker before the first of them has answered. The worker runs
 * them one after another (PGlite queues its queries), so they never overlap; what this saves is
 * the worker's idle time between a reply and the next message, which on a busy server thread
 * (50 requests parsing and answering) was longer than the statements themselves.
 */
const PIPELINE = 8

interface Unit {
  lane: Lane
  /**
   * When the work it belongs to was asked for (performance.now()): a request's arrival, else the
   * unit's own. The interactive lane runs the oldest first, so a request's later statements go
   * ahead of newer requests' first ones.
   */
  since: number
  /** A transaction holds the connection alone: nothing else is in flight while it runs. */
  exclusive: boolean
  run: () => Promise<void>
  fail: (err: Error) => void
  timer?: NodeJS.Timeout
}

export function timeoutError(waitedMs: number): Error {
  return Object.assign(
    new Error(`canceling statement due to statement timeout: the database was busy for ${Math.round(waitedMs)} ms before it could start`),
    { code: '57014' },
  )
}

/**
 * The two lanes and the one connection's turn: `schedule` queues a unit, which runs alone once
 * its turn comes; `drain` waits until nothing is queued or running and takes nothing new.
 */
function createLanes(queueTimeoutMs: number) {
  const queues: Record<Lane, Unit[]> = { interactive: [], background: [] }
  /** Units sent and not yet answered; an exclusive one is always alone. */
  let active = 0
  let exclusiveActive = false
  let burst = 0
  let closing = false
  let broken: Error | null = null
  /** The database is down for now (a full disk): units fail at once with this, and `poke` asks for a reopen. */
  let suspended: { err: Error; poke: () => void } | null = null
  let idle: (() => void) | null = null

  const pump = () => {
    while (!exclusiveActive && active < PIPELINE) {
      const takeBackground = queues.background.length > 0 && (queues.interactive.length === 0 || burst >= INTERACTIVE_BURST)
      const q = takeBackground ? queues.background : queues.interactive
      const unit = q[0]
      if (!unit) {
        if (active === 0) idle?.()
        return
      }
      // A transaction waits until the statements in flight have answered, and takes its turn then.
      if (unit.exclusive && active > 0) return
      q.shift()
      burst = unit.lane === 'interactive' ? burst + 1 : 0
      clearTimeout(unit.timer)
      active++
      exclusiveActive = unit.exclusive
      void unit.run().finally(() => {
        active--
        exclusiveActive = false
        pump()
      })
    }
  }

  const failQueued = (err: Error) => {
    for (const u of [...queues.interactive, ...queues.background]) {
      clearTimeout(u.timer)
      u.fail(err)
    }
    queues.interactive.length = 0
    queues.background.length = 0
  }

  const schedule = <T>(lane: Lane, work: () => Promise<T>, exclusive = false, since?: number): Promise<T> => {
    if (broken) return Promise.reject(broken)
    if (closing) return Promise.reject(new Error('The database is closed.'))
    if (suspended) {
      suspended.poke()
      return Promise.reject(suspended.err)
    }
    return new Promise<T>((resolve, reject) => {
      const queued = performance.now()
      const unit: Unit = {
        lane,
        since: since ?? queued,
        exclusive,
        // Whoever waits on the unit is continued on a turn of its own (turns.ts); the unit is done at once.
        run: () =>
          work().then(
            (value) => later(() => resolve(value)),
            (err: unknown) => later(() => reject(err)),
          ),
        fail: reject,
      }
      if (lane === 'interactive' && queueTimeoutMs > 0) {
        unit.timer = setTimeout(() => {
          const q = queues.interactive
          const at = q.indexOf(unit)
          if (at < 0) return
          q.splice(at, 1)
          reject(timeoutError(performance.now() - queued))
        }, queueTimeoutMs)
        unit.timer.unref()
      }
      // In order of `since` (stable): nearly always at the end, so the walk back is short.
      const q = queues[lane]
      let at = q.length
      while (at > 0 && q[at - 1]!.since > unit.since) at--
      q.splice(at, 0, unit)
      pump()
    })
  }

  return {
    schedule,
    /** The worker is gone: every queued unit fails with `err`, and every later one. */
    failAll: (err: Error) => {
      broken = err
      failQueued(err)
    },
    /** The database is down until `resume`: queued units fail with `err`, later ones at once, each calling `poke`. */
    suspend: (err: Error, poke: () => void) => {
      suspended = { err, poke }
      failQueued(err)
    },
    resume: () => {
      suspended = null
      pump()
    },
    /** Units sent and not yet settled. */
    active: () => active,
    drain: async () => {
      closing = true
      if (active > 0 || queues.interactive.length || queues.background.length) await new Promise<void>((resolve) => (idle = resolve))
    },
  }
}

/** Resolves once the worker has opened PGlite; rejects with why it could not (the worker then ends). */
function whenReady(worker: Worker): Promise<{ fastCopy: boolean; abortGuard: boolean; arrays: Array<[number, number]> }> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err)
    const onExit = (code: number) => reject(new Error(`The database worker stopped while opening (exit code ${code}).`))
    worker.once('error', onError)
    worker.once('exit', onExit)
    worker.once('message', (m: Ready) => {
      worker.off('error', onError)
      worker.off('exit', onExit)
      if (m.ready) resolve({ fastCopy: m.fastCopy, abortGuard: m.abortGuard, arrays: m.arrays })
      else {
        void worker.terminate()
        reject(fromWire(m.error))
      }
    })
  })
}

/** A request to the worker before it is given its id. */
type Body = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never
type Ok = Extract<Reply, { ok: true }>

/** Requests to the worker and their replies, matched by id. */
interface Channel {
  /** How the worker's PGlite reads values: its answers' bytes are read here the same way. */
  readWith: ReadWith
  sendFor: (body: Body) => Promise<Ok>
  /** The reply's rows. */
  send: (body: Body) => Promise<Array<Record<string, unknown>>>
  /** Why nothing more can be sent (the worker failed or stopped, or the database was closed), else null. */
  broken: () => Error | null
  /** From now on every send fails: the database is closed. */
  markClosed: () => void
}

/**
 * The channel to an opened worker. When the worker fails or stops, every request awaiting its
 * reply fails, every later one too, and `onBroken` is told (the lanes fail what they hold).
 */
function openChannel(
  worker: Worker,
  readWith: ReadWith,
  log: ((line: string) => void) | undefined,
  onBroken: (err: Error) => void,
): Channel {
  let broken: Error | null = null
  const pending = new Map<number, { resolve: (reply: Ok) => void; reject: (e: Error) => void }>()
  let nextId = 1
  const failAll = (err: Error) => {
    broken = err
    for (const p of pending.values()) p.reject(err)
    pending.clear()
    onBroken(err)
  }
  worker.on('message', (m: Reply) => {
    const p = pending.get(m.id)
    if (!p) return
    pending.delete(m.id)
    if (m.ok) p.resolve(m)
    else p.reject(fromWire(m.error))
    // PGlite's backend is gone (see pglite-disk.ts): whatever else was sent fails with the same reason.
    if (!m.ok && m.fatal) failAll(fromWire(m.error))
  })
  worker.on('error', (err) => {
    log?.(`database: the PGlite worker failed: ${err.message}`)
    failAll(new Error(`The database worker failed: ${err.message}`))
  })
  worker.on('exit', (code) => {
    if (!broken) failAll(new Error(`The database worker stopped (exit code ${code}).`))
  })
  const sendFor = (body: Body): Promise<Ok> => {
    if (broken) return Promise.reject(broken)
    const id = nextId++
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject })
      // A COPY's bytes move to the worker (transferred) rather than being cloned.
      const blob = body.op === 'query' ? body.blob : undefined
      worker.postMessage({ ...body, id } as Request, blob ? [blob.buffer as ArrayBuffer] : [])
    })
  }
  return {
    readWith,
    sendFor,
    send: async (body) => rowsOf((await sendFor(body)).rows ?? [], readWith),
    broken: () => broken,
    markClosed: () => {
      broken ??= new Error('The database is closed.')
    },
  }
}

const utf8 = new TextEncoder()

/** PGlite's parsers by type oid. */
type Parsers = NonNullable<Parameters<typeof PgTypes.parseType>[2]>
type ArrayElement = Parameters<typeof PgTypes.arrayParser>[1]
interface ReadWith {
  parseType: typeof PgTypes.parseType
  parsers: Parsers
}

/**
 * The parsers the worker's PGlite uses: its defaults (it is opened with no others) and, as its
 * query() adds them when it opens, one for each array type over its element's parser.
 */
function parsersOf(pgTypes: typeof PgTypes, arrays: Array<[number, number]>): Parsers {
  const parsers: Parsers = { ...pgTypes.parsers }
  // An element type with no parser of its own leaves its values as text, as in PGlite.
  for (const [element, array] of arrays) parsers[array] = (text) => pgTypes.arrayParser(text, parsers[element] as ArrayElement, array)
  return parsers
}

/** A reply's rows as objects: an answer's bytes are read here, as the worker's PGlite would have. */
function rowsOf(rows: Rows, { parseType, parsers }: ReadWith): Array<Record<string, unknown>> {
  if (!(rows instanceof Uint8Array)) return rows
  const read = readRows(rows, (text, typeId) => parseType(text, typeId, parsers))
  if (!read) throw new Error('The database answered with an error the worker did not report.')
  return read
}

/** Statements sent straight to the worker, refused once `scope` says their transaction is over. */
function runner(channel: Channel, scope: () => boolean): ScriptRunner {
  const check = () => {
    if (!scope()) throw new Error('This transaction is over: run statements on the handle passed to transaction().')
  }
  return {
    query: async <R extends Record<string, unknown>>(sql: string, params?: readonly unknown[]) => {
      check()
      return { rows: (await channel.send({ op: 'query', sql, params: params ? [...params] : undefined })) as R[] }
    },
    exec: async (sql: string) => {
      check()
      await channel.send({ op: 'exec', sql })
    },
    copyFrom: async (sql: string, data: CopyData) => {
      check()
      // Encoded here: the server's thread has time to spare during a sync, PGlite's thread has none.
      const blob = typeof data === 'string' ? utf8.encode(data) : data instanceof Uint8Array ? data : joined(data)
      await channel.send({ op: 'query', sql, params: [], blob })
    },
  }
}

/** Pieces of COPY data as the one file PGlite reads. */
function joined(pieces: Iterable<Uint8Array<ArrayBuffer>>): Uint8Array<ArrayBuffer> {
  const all = [...pieces]
  const out = new Uint8Array(all.reduce((n, p) => n + p.byteLength, 0))
  let at = 0
  for (const p of all) {
    out.set(p, at)
    at += p.byteLength
  }
  return out
}

/** `fn` in a transaction of the worker's: committed when it returns, rolled back when it throws. */
async function inTransaction<T>(channel: Channel, fn: (tx: ScriptRunner) => Promise<T>): Promise<T> {
  await channel.send({ op: 'begin' })
  let open = true
  try {
    const out = await fn(runner(channel, () => open))
    open = false
    await channel.send({ op: 'end', commit: true })
    return out
  } catch (err) {
    if (open) {
      open = false
      await channel.send({ op: 'end', commit: false }).catch(() => {})
    }
    throw err
  }
}

/** What each lane's Db shares: the lanes, the channel, closing, and the other lane's Db. */
interface FacadeDeps {
  lanes: ReturnType<typeof createLanes>
  channel: Channel
  close: () => Promise<void>
  other: (lane: Lane) => ScriptDb
}

/**
 * The Db whose every unit waits in `lane`; with `since`, as work asked for then (a request's
 * arrival: see Db.turn).
 */
function facade(lane: Lane, deps: FacadeDeps, since?: number): ScriptDb {
  const { lanes, channel, close, other } = deps
  const schedule = <T>(l: Lane, work: () => Promise<T>, exclusive = false) => lanes.schedule(l, work, exclusive, since)
  const direct = runner(channel, () => true)
  const db: ScriptDb = {
    engine: 'pglite',
    query: (sql, params) => schedule(lane, () => direct.query(sql, params)),
    // A transaction of its own inside the worker (PGlite runs it alone): it may go in flight
    // beside single statements, never inside an open transaction (that one is exclusive).
    batch: (statements) =>
      schedule(lane, async () => {
        const reply = await channel.sendFor({
          op: 'batch',
          statements: statements.map((st) => ({ sql: st.sql, params: st.params ? [...st.params] : undefined })),
        })
        return (reply.results ?? []).map((rows) => ({ rows: rowsOf(rows, channel.readWith) }))
      }),
    transaction: (fn) => schedule(lane, () => inTransaction(channel, fn), true),
    // PGlite has one session: statements of `fn` take their turns like any others.
    withConnection: (fn) => fn(db),
    close,
    lane: (l) => (l === lane ? db : other(l)),
    turn: (at) => facade(lane, deps, at),
  }
  return db
}

/** Closing, once however often it is called: accepted work finishes, nothing new is taken, the worker ends. */
function closer(link: Link, lanes: ReturnType<typeof createLanes>, recovery: { close: () => void }): () => Promise<void> {
  let closed: Promise<void> | null = null
  return () => {
    closed ??= (async () => {
      recovery.close()
      await lanes.drain()
      const { channel, worker } = link
      if (!channel.broken()) await channel.send({ op: 'close' }).catch(() => {})
      channel.markClosed()
      await worker.terminate()
    })()
    return closed
  }
}

/** The worker in use and its channel; a reopen after a full disk replaces both. */
interface Link {
  worker: Worker
  channel: Channel
}

/** A channel that sends through whichever worker `link` holds now. */
function linkedChannel(link: Link): Channel {
  return {
    sendFor: (body) => link.channel.sendFor(body),
    send: (body) => link.channel.send(body),
    broken: () => link.channel.broken(),
    markClosed: () => link.channel.markClosed(),
    get readWith() {
      return link.channel.readWith
    },
  }
}

/** While the disk is full, how often free space is looked at (a statfs: cheap). */
const PROBE_MS = 2_000
/**
 * Free space wanted before the data directory is opened again: opening replays the write-ahead
 * log and ends with a checkpoint, which may start a new 16 MiB log segment. Below this an open
 * would most likely fail again, after seconds of work.
 */
const REOPEN_FREE_BYTES = 24 * 1024 * 1024
/** An open that has not answered by then is given up (and tried again at the next probe). */
const REOPEN_TIMEOUT_MS = 120_000

function freeBytes(dir: string): number {
  try {
    const st = statfsSync(dir)
    return st.bavail * st.bsize
  } catch {
    return 0
  }
}

interface RecoveryDeps {
  init: WorkerInit
  link: Link
  lanes: ReturnType<typeof createLanes>
  log?: (line: string) => void
  /** Opens a worker on the directory; its channel reports a break to `onBroken`. */
  start: (init: WorkerInit) => Promise<Link>
}

/**
 * A full disk, survived. When the worker says PGlite's backend is gone for a full disk, the
 * worker is ended (it would hold memory, never a core: it runs nothing more), every unit fails at
 * once with the reason (no 30 s waits that end in "busy"), and every PROBE_MS, and whenever a
 * unit is asked for, free space is looked at; once there is room the directory is opened again
 * (PostgreSQL's crash recovery: every committed transaction is there) and work resumes, without a
 * restart. Any other break of the worker stays what it was: the database is gone until restart.
 */
function createRecovery(d: RecoveryDeps) {
  let down: Error | null = null
  let reopening = false
  let closed = false
  let timer: NodeJS.Timeout | null = null
  let injected = false
  let lastFailure = ''

  const stopProbing = () => {
    if (timer) clearInterval(timer)
    timer = null
  }
  const probe = () => {
    if (!down || reopening || closed || d.lanes.active() > 0) return
    if (injected || freeBytes(d.init.dataDir) < REOPEN_FREE_BYTES) return
    reopening = true
    void reopen().finally(() => (reopening = false))
  }
  const reopen = async () => {
    let opened: Link
    let giveUp: NodeJS.Timeout | undefined
    try {
      const started = d.start({ ...d.init, diskFull: injected })
      const timeout = new Promise<never>((_, reject) => {
        giveUp = setTimeout(() => reject(new Error(`the database did not open within ${REOPEN_TIMEOUT_MS / 1000} s`)), REOPEN_TIMEOUT_MS)
      })
      opened = await Promise.race([started, timeout])
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err)
      if (why !== lastFailure) d.log?.(`database: opening ${d.init.dataDir} again failed (${why}); trying again when there is room`)
      lastFailure = why
      return
    } finally {
      clearTimeout(giveUp)
    }
    if (closed) return void opened.worker.terminate()
    Object.assign(d.link, opened)
    down = null
    lastFailure = ''
    stopProbing()
    d.lanes.resume()
    d.log?.(`database: there is room on the disk again; ${d.init.dataDir} is open and writes resume`)
  }

  return {
    /** The worker `worker` broke with `err`. */
    broken: (worker: Worker, err: Error) => {
      if (worker !== d.link.worker) return
      if ((err as { code?: unknown }).code !== DISK_FULL_CODE || closed) return d.lanes.failAll(err)
      down = err
      d.lanes.suspend(err, probe)
      void worker.terminate()
      d.log?.(`database: ${err.message} (${d.init.dataDir}); every request that needs the database answers 503 until there is room again`)
      timer ??= setInterval(probe, PROBE_MS)
      timer.unref()
    },
    /** The test seam: every write to the data directory fails while `full` (reopens too). */
    injectDiskFull: async (full: boolean) => {
      injected = full
      if (!down) await d.link.channel.send({ op: 'fault', full })
      else if (!full) probe()
    },
    close: () => {
      closed = true
      stopProbing()
    },
  }
}

/** Spawns a worker and waits until it has opened PGlite; its channel reports a break to `onBroken`. */
async function startWorker(
  init: WorkerInit,
  log: PgliteWorkerOptions['log'],
  onBroken: (worker: Worker, err: Error) => void,
): Promise<Link> {
  const worker = spawnWorker(init)
  // PGlite's value parsers, loaded here only when this server runs PGlite (beside the worker's start).
  const [{ fastCopy, abortGuard, arrays }, { types: pgTypes }] = await Promise.all([whenReady(worker), import('@electric-sql/pglite')])
  if (!abortGuard)
    log?.(
      "database: this PGlite's module is not the one pglite-disk.ts knows; after a PANIC (a full disk) its worker may hang instead of reopening",
    )
  if (!fastCopy)
    log?.(
      "database: this PGlite's /dev/blob device is not the one pglite-worker.ts knows; COPY reads its data byte by byte (slower, still correct)",
    )
  const readWith = { parseType: pgTypes.parseType, parsers: parsersOf(pgTypes, arrays) }
  return { worker, channel: openChannel(worker, readWith, log, (err) => onBroken(worker, err)) }
}

export async function openPgliteWorker(opts: PgliteWorkerOptions): Promise<ScriptDb> {
  const init: WorkerInit = { dataDir: opts.dataDir, ...(await wasmModules()), ...(opts.diskFaults ? { diskFaults: true } : {}) }
  const lanes = createLanes(opts.queueTimeoutMs ?? 0)
  let recovery: ReturnType<typeof createRecovery> | null = null
  const start = (i: WorkerInit) => startWorker(i, opts.log, (worker, err) => recovery?.broken(worker, err))
  const link = await start(init)
  recovery = createRecovery({ init, link, lanes, log: opts.log, start })
  const channel = linkedChannel(link)
  const deps: FacadeDeps = { lanes, channel, close: closer(link, lanes, recovery), other: (l) => facades[l] }
  const facades: Record<Lane, ScriptDb> = { interactive: facade('interactive', deps), background: facade('background', deps) }
  if (opts.diskFaults) {
    const faults = { diskFull: recovery.injectDiskFull }
    facades.interactive.faults = faults
    facades.background.faults = faults
  }
  return facades.interactive
}

/** The Db the worker client gives: migrations need exec and COPY in its transactions. */
export interface ScriptDb extends MigratableDb {
  lane: (lane: Lane) => ScriptDb
  turn: (since: number) => ScriptDb
  /** The test seam, only where opened with `diskFaults`. */
  faults?: DiskFaults
}

/** Test seam: `diskFull(true)` makes every write PGlite makes to its data directory fail with ENOSPC, until `diskFull(false)`. */
export interface DiskFaults {
  diskFull: (full: boolean) => Promise<void>
}
