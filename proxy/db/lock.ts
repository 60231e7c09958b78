import { linkSync, mkdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * One process per PGlite data directory. Two processes on one directory each keep their own
 * copy of the pages and overwrite each other's writes (a user added by the CLI beside a running
 * server was lost), so the directory carries a lock file naming its owner's pid. It is created
 * with O_EXCL (exactly one process can create it) and owner-only; a lock whose pid is no longer
 * alive (a crash, kill -9) is stale and taken over. The file is written whole under a private
 * name and then hard-linked into place: link() fails when the name exists, like O_EXCL, and
 * nobody ever reads a half-written lock (an empty one would look stale).
 */

export const LOCK_FILE = 'switchboard.lock'

export interface DataDirLock {
  path: string
  /** Removes the lock file if it is still ours; safe to call twice. */
  release: () => void
}

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError'
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `The data directory ${dir} is in use by process ${pid}${pid === process.pid ? ' (this process)' : ''}. ` +
        "One process at a time may open it (two would overwrite each other's writes): stop that process first, or use DATABASE_URL to share a PostgreSQL server.",
    )
  }
}

/** The pid in the directory's lock file, or null when there is none (or it is unreadable). */
export function readLockHolder(dir: string): { pid: number } | null {
  let text: string
  try {
    text = readFileSync(join(dir, LOCK_FILE), 'utf8')
  } catch {
    return null
  }
  const m = /^\s*(\d{1,10})\s*$/.exec(text)
  const pid = m ? Number(m[1]) : NaN
  return Number.isSafeInteger(pid) && pid > 0 ? { pid } : null
}

/** Signal 0 checks that a process exists; EPERM means it exists under another user. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** This process's locks: a second open from the same process is refused the same way. */
const held = new Set<string>()

/**
 * Takes the directory (which must exist) for this process, or throws DataDirInUseError naming
 * the pid that holds it. A lock file that names no live process is replaced.
 */
export function acquireDataDirLock(dir: string): DataDirLock {
  const path = join(dir, LOCK_FILE)
  if (held.has(path)) throw new DataDirInUseError(dir, process.pid)
  const mine = `${path}.${process.pid}.tmp`
  writeFileSync(mine, `${process.pid}\n`, { mode: 0o600, flag: 'w' })
  try {
    // Bounded: each round either links the file, finds a live owner, or removes a stale one.
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        linkSync(mine, path)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
        const holder = readLockHolder(dir)
        if (holder && holder.pid !== process.pid && alive(holder.pid)) throw new DataDirInUseError(dir, holder.pid)
        // Stale (a dead pid, or our own pid left by an earlier process that had it). Two processes
        // that both saw it stale must not both replace it: the second would remove the first's
        // fresh lock. Only the holder of the take-over guard (mkdir: one process creates it) may
        // remove a lock, and it reads the holder again under the guard.
        if (!takeOverGuard(path)) {
          sleepSync(20)
          continue
        }
        try {
          const now = readLockHolder(dir)
          if (now && now.pid !== process.pid && alive(now.pid)) throw new DataDirInUseError(dir, now.pid)
          try {
            unlinkSync(path)
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
          }
          // Between the unlink and this link a process outside the guard may link first (the
          // name was free): it owns the directory, and the next round finds it alive.
          try {
            linkSync(mine, path)
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
            continue
          }
        } finally {
          rmSync(`${path}.takeover`, { recursive: true, force: true })
        }
      }
      return own(dir, path)
    }
  } finally {
    unlinkSync(mine)
  }
  throw new Error(`Could not take the lock file ${path}: it kept changing (another process is opening the directory).`)
}

/** The take-over guard, created by one process at a time; one left by a process that died taking over (older than 10 s) is cleared. */
function takeOverGuard(path: string): boolean {
  const guard = `${path}.takeover`
  try {
    mkdirSync(guard, { mode: 0o700 })
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    try {
      if (Date.now() - statSync(guard).mtimeMs > 10_000) rmSync(guard, { recursive: true, force: true })
    } catch {
      /* gone meanwhile */
    }
    return false
  }
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

function own(dir: string, path: string): DataDirLock {
  held.add(path)
  let released = false
  return {
    path,
    release: () => {
      if (released) return
      released = true
      held.delete(path)
      if (readLockHolder(dir)?.pid !== process.pid) return
      try {
        unlinkSync(path)
      } catch {
        /* already gone */
      }
    },
  }
}
