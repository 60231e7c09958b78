import type { Db } from '../db/types.ts'
import { appendEntries, type NewEntry } from './access-log.ts'

/**
 * The access log's one writer: group commit. Entries that arrive while a write is under way (or
 * within `gatherMs`) go in the next transaction together, and each caller's promise settles
 * when its own entry is committed, so a read can wait for its entry before answering. When a
 * batch is refused, its entries are retried one by one: one bad entry never takes another's
 * with it, and only the caller whose entry cannot be written sees the rejection. No wait is
 * added before the first write (gatherMs 0): entries group while a write is under way.
 */

interface Waiting {
  entry: NewEntry
  resolve: (seq: string) => void
  reject: (err: unknown) => void
}

export interface LogWriter {
  /** Resolves with the entry's number in the chain once it is committed. */
  write: (entry: NewEntry) => Promise<string>
  /** Resolves when everything written so far has settled. */
  flush: () => Promise<void>
}

export function createLogWriter(db: Db, opts: { gatherMs?: number; maxBatch?: number } = {}): LogWriter {
  const gatherMs = opts.gatherMs ?? 0
  const maxBatch = opts.maxBatch ?? 500
  let queue: Waiting[] = []
  let running: Promise<void> | null = null
  let timer: ReturnType<typeof setTimeout> | null = null

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
    if (running || queue.length === 0) return
    const batch = queue.slice(0, maxBatch)
    queue = queue.slice(batch.length)
    running = commit(batch).finally(() => {
      running = null
      // What arrived during this write is already a group: write it at once.
      if (queue.length) start()
    })
  }

  return {
    write: (entry) =>
      new Promise<string>((resolve, reject) => {
        queue.push({ entry, resolve, reject })
        if (running) return
        if (queue.length >= maxBatch) start()
        else timer ??= setTimeout(start, gatherMs)
      }),
    flush: async () => {
      for (let i = 0; i < 1_000_000 && (running || queue.length); i++) {
        start()
        if (running) await running
      }
    },
  }
}
