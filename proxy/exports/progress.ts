import type { ExportProgress } from '../../contract/index-api.ts'
import { ProxyError } from '../errors.ts'
import type { QueuePlace } from './gate.ts'

/**
 * Where each running export (the index's, the desk's reports) stands, by the id the browser gave it (`job`). The file itself
 * goes to the browser's own download manager (a plain GET with Content-Disposition: attachment),
 * which writes it to disk as it arrives and tells the page nothing; the tray asks here instead:
 * whether it still waits for a slot (its place in line and when it should start), rows and bytes
 * written, of how many, and how it ended (its error in the one envelope). Cancel
 * comes here too, since the page cannot stop a download the browser owns: it aborts the walk and
 * cuts the response, so the browser's copy ends unfinished rather than looking whole.
 *
 * Records belong to the person who started the export (another person's id answers 404, the same
 * as an unknown one) and live in this process: behind several servers the tray's questions must
 * reach the server that streams (sticky sessions), as the download itself does.
 */

/** What an export tells its progress record as it goes (the record's side of createExportTracker's `begin`). */
export interface ExportJobHooks {
  signal: AbortSignal
  update: (patch: Partial<ExportProgress>) => void
  /** What it exports (its filters), for the access log's entry if it is cancelled. */
  about: (what: Record<string, unknown>) => void
  /** The export waits in the gate's queue: the record reads its place from `place` until it runs. */
  queued: (place: () => QueuePlace | null) => void
  end: (how: { state: 'done' } | { state: 'cancelled'; by: 'you' | 'browser' } | { state: 'failed'; error: ProxyError['body'] }) => void
}

/** A finished record is kept this long for the tray's last look. */
const KEEP_MS = 10 * 60_000
/** At most this many records (oldest finished ones go first); a stream of ids cannot grow the map without end. */
const MAX_RECORDS = 1_000

export const JOB_ID = /^[A-Za-z0-9_-]{8,64}$/

interface Entry {
  who: string
  record: ExportProgress
  controller: AbortController
  endedAt: number | null
  /** Cancelled before its request arrived: the request, when it comes, is refused. */
  cancelledEarly?: boolean
  /** While it waits in the gate's queue: its place, read afresh on each look (others leave, paces change). */
  place?: () => QueuePlace | null
  /** What it exports (its filters: number, party…), for the access log's entry of a cancel. */
  about?: Record<string, unknown>
}

/** A cancel as the access log records it: the export's action and filters; null for one cancelled before its request arrived (it read nothing). */
export interface Cancelled {
  record: ExportProgress
  logged: { action: NonNullable<ExportProgress['action']>; what: Record<string, unknown> } | null
}

/**
 * The download's request of an export cancelled before it arrived: refused, having read nothing.
 * The route logs the cancel then, under its own action and filters (the cancel knew neither).
 */
export class CancelledBeforeStart extends ProxyError {
  constructor() {
    super(409, { kind: 'invalid_request', field: 'job', message: 'This export was cancelled before it started.' })
  }
}

export interface ExportTracker {
  /** A record for a new export; the signal aborts when the person cancels it. */
  begin: (who: string, job: string) => ExportJobHooks
  get: (who: string, job: string) => ExportProgress
  cancel: (who: string, job: string) => Cancelled
  size: () => number
}

type Ending = Parameters<ExportJobHooks['end']>[0]

const unknownJob = () =>
  new ProxyError(404, {
    kind: 'not_found',
    field: 'job',
    message: 'This server has no export by that id for you: it has not started, or it ended more than ten minutes ago.',
  })

export function createExportTracker(now: () => number = Date.now): ExportTracker {
  const entries = new Map<string, Entry>()
  const key = (who: string, job: string) => `${who}\u0000${job}`
  const prune = () => {
    const t = now()
    for (const [k, e] of entries) if (e.endedAt !== null && t - e.endedAt > KEEP_MS) entries.delete(k)
    if (entries.size < MAX_RECORDS) return
    const ended = [...entries].filter(([, e]) => e.endedAt !== null).sort((a, b) => a[1].endedAt! - b[1].endedAt!)
    for (const [k] of ended.slice(0, entries.size - MAX_RECORDS + 1)) entries.delete(k)
  }
  const find = (who: string, job: string) => {
    const e = entries.get(key(who, job))
    if (!e) throw unknownJob()
    return e
  }
  return {
    size: () => entries.size,
    begin: (who, job) => {
      prune()
      const k = key(who, job)
      const prior = entries.get(k)
      // One id, one export: a second request under a running id (a reload of the link) is refused
      // rather than mixing two streams' counts in one record.
      if (prior && prior.endedAt === null)
        throw new ProxyError(409, { kind: 'invalid_request', field: 'job', message: 'An export with this job id is already running.' })
      // The person cancelled while the browser's request was still on its way: no file is written.
      if (prior?.cancelledEarly) throw new CancelledBeforeStart()
      const entry: Entry = {
        who,
        controller: new AbortController(),
        endedAt: null,
        record: { job, state: 'running', rows: 0, bytes: 0, total: null, fileName: null, startedAt: new Date(now()).toISOString() },
      }
      entries.set(k, entry)
      return {
        signal: entry.controller.signal,
        update: (patch) => {
          if (entry.endedAt !== null) return
          if (patch.state !== undefined && patch.state !== 'queued') delete entry.place
          entry.record = { ...entry.record, ...patch }
        },
        about: (what) => {
          entry.about = what
        },
        queued: (place) => {
          if (entry.endedAt !== null) return
          entry.place = place
          entry.record = { ...entry.record, state: 'queued' }
        },
        end: (how: Ending) => {
          if (entry.endedAt !== null) return
          entry.endedAt = now()
          delete entry.place
          // A cancel asked for wins over whatever the cut connection made of the end.
          entry.record = entry.controller.signal.aborted
            ? { ...entry.record, state: 'cancelled', cancelledBy: 'you' }
            : how.state === 'cancelled'
              ? { ...entry.record, state: 'cancelled', cancelledBy: how.by }
              : how.state === 'failed'
                ? { ...entry.record, state: 'failed', error: how.error }
                : { ...entry.record, state: 'done' }
        },
      }
    },
    get: (who, job) => {
      const e = find(who, job)
      const place = e.place?.()
      return place ? { ...e.record, queue: place } : e.record
    },
    cancel: (who, job) => {
      const k = key(who, job)
      const e = entries.get(k)
      if (e) {
        // Logged by the cancel that stops it, once (a second click while the batch in hand ends is not another).
        const stops = e.endedAt === null && !e.controller.signal.aborted
        if (e.endedAt === null) e.controller.abort()
        // A waiting export stops at once (it has sent nothing): the answer says so before its record ends.
        const record: ExportProgress = e.record.state === 'queued' ? { ...e.record, state: 'cancelled', cancelledBy: 'you' } : e.record
        // Logged when it stopped something: a cancel of an export that had ended changes nothing.
        const logged = stops && e.record.action ? { action: e.record.action, what: e.about ?? {} } : null
        return { record, logged }
      }
      // Not begun here yet (the download's request is still on its way): remembered as cancelled,
      // so that request is refused when it arrives instead of writing the whole file.
      prune()
      const controller = new AbortController()
      controller.abort()
      const record: ExportProgress = {
        job,
        state: 'cancelled',
        cancelledBy: 'you',
        rows: 0,
        bytes: 0,
        total: null,
        fileName: null,
        startedAt: new Date(now()).toISOString(),
      }
      entries.set(k, { who, controller, endedAt: now(), cancelledEarly: true, record })
      return { record, logged: null }
    },
  }
}

/**
 * Ends an export's record as failed, its reason in the one error envelope (the tray shows it; the
 * download itself shows only "failed"). A record already ended keeps its end.
 */
export function endFailed(job: Pick<ExportJobHooks, 'end'> | null | undefined, err: unknown): void {
  job?.end({
    state: 'failed',
    error:
      err instanceof ProxyError ? err.body : { kind: 'server_error', message: 'The export failed on the server; the cause is in its log.' },
  })
}
