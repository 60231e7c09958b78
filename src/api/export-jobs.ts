import { INDEX_PATHS, type ExportProgress } from '../../contract/index-api'
import { INDEX_ANSWERS } from '../../contract/index-answers'
import { ApiError, isRetryable, toApiError, wordsFor } from './errors'
import { apiUrl, getJson, holdActive, parseWire, postJson } from './client'
import { addJob, getJobs, removeJob, update } from './export-store'
import { startSync } from './index-admin'
import { fetchNumberStatus } from './index-status'

/**
 * Streamed exports (the index's /api/index/export) as jobs that outlive the page that started
 * them: the tray in the layout shows each job's progress (rows written, of how many) and Cancel.
 *
 * The file never passes through the page: the export is a plain GET link (the session's cookie
 * goes with it, the server checks Sec-Fetch-Site and Origin as for every /api call) handed to the
 * browser's own download manager, which writes it to disk as it arrives, a million rows or ten.
 * The page learns how far it has come from the server, which keeps a record per export under an
 * id the page chose (`job`): rows and bytes written, of how many, and how it ended, a failure in
 * the one error envelope. Cancel asks the server to stop: it stops reading and cuts the response,
 * so the browser's copy ends unfinished rather than looking whole. When the server already runs
 * as many exports as it allows, it holds the download's request in line and the record says
 * where: the tray shows the place and when it should start, then the progress as usual.
 *
 * A whole-history export of a number still being indexed first waits for its sync (asking for
 * one if none runs), showing the sync's progress in the tray, so the file holds every message
 * rather than what happened to be indexed when the button was pressed. If the user has left the
 * page that started it by then, the tray offers the download instead of starting it unasked.
 */

/** Per job: the wait's abort (before the download starts), and the server's id for the export. */
const running = new Map<number, { controller: AbortController; job: string; url: string | null }>()
let nextId = 1

/** How often the tray asks the server how far a download has come. */
const POLL_MS = 700
/** How long the server may not know a job yet: the browser starts the download request on its own time. */
const START_GRACE_MS = 20_000
/** How often a waiting export asks how far the number's sync has come. */
export const WAIT_POLL_MS = 1_500

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t)
        // fail() reads the signal, not the reason: any Error will do.
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
      },
      { once: true },
    )
  })

/** Seconds left for `left` more at the rate `done` came in over `elapsedMs`; null without a rate yet. */
export function timeLeft(done: number, left: number, elapsedMs: number): number | null {
  if (left <= 0) return 0
  if (done <= 0 || elapsedMs < 1_000) return null
  return Math.ceil(left / (done / (elapsedMs / 1000)))
}

/**
 * Until the number's whole history is indexed: polls its status, asks for a sync if none is
 * queued or running, and fails with the sync's own reason if it stops on an error. A sync that
 * ends short without an error (the upstream's total moved on) is not waited for twice.
 */
async function waitForSync(id: number, target: { number: string; tid: string; total?: number }, signal: AbortSignal) {
  let asked = false
  for (;;) {
    const s = await fetchNumberStatus(target.number, signal)
    if (!s.enabled) return
    const rec = s.numbers[0]
    const running = s.freshness.syncing.includes(target.number) || rec?.state === 'queued' || rec?.state === 'syncing'
    if (!running && s.freshness.incomplete.length === 0) return
    if (!running) {
      if (rec && (rec.state === 'error' || rec.state === 'paused') && asked)
        throw new Error(`The number's sync stopped${rec.error ? `: ${rec.error}` : '.'}`)
      if (asked) return
      await startSync({ number: target.number, ...(target.tid ? { tid: target.tid } : {}) })
      asked = true
    }
    const indexed = rec?.progress?.done ?? rec?.indexed ?? 0
    // Until the sync has read the upstream's total, the page's own count of the history stands in.
    const of = rec?.progress?.total ?? rec?.upstreamTotal ?? target.total ?? null
    const rate = s.progress?.ratePerSecond ?? null
    update(id, {
      phase: 'waiting',
      indexed,
      of,
      secondsLeft: rate && of !== null && of > indexed ? Math.ceil((of - indexed) / rate) : null,
    })
    await sleep(WAIT_POLL_MS, signal)
  }
}

/** The tray's words for an error: the kind's title, then the server's own account of it. */
const reasonOf = (e: ApiError) => `${wordsFor(e).title}: ${e.extra.cause ?? e.message}`

/** A job id the server accepts (8 to 64 of [A-Za-z0-9_-]) and no one can guess. */
const newJobId = () => crypto.randomUUID()

/** Hands a URL of our own to the browser's download manager (Content-Disposition names the file). */
function openDownload(url: string) {
  const a = document.createElement('a')
  a.href = url
  a.download = ''
  a.hidden = true
  document.body.append(a)
  a.click()
  a.remove()
}

export function startExport(opts: {
  path: string
  params: Record<string, string | number | null | undefined>
  label: string
  fileName: string
  total: number | null
  /** A whole-history export: wait until this number is wholly indexed before streaming. */
  waitForSync?: { number: string; tid: string; total?: number }
}): number {
  const id = nextId++
  const controller = new AbortController()
  const job = newJobId()
  running.set(id, { controller, job, url: null })
  const origin = window.location.pathname + window.location.search
  addJob({
    id,
    label: opts.label,
    fileName: opts.fileName,
    total: opts.total,
    rows: 0,
    bytes: 0,
    startedAt: new Date().toISOString(),
    secondsLeft: null,
    ...(opts.waitForSync ? { phase: 'waiting' as const, indexed: 0, of: null } : { phase: 'running' as const }),
  })
  void run(id, opts, controller, origin)
  return id
}

async function run(
  id: number,
  opts: {
    path: string
    params: Record<string, string | number | null | undefined>
    waitForSync?: { number: string; tid: string; total?: number }
  },
  controller: AbortController,
  origin: string,
) {
  const entry = running.get(id)
  if (!entry) return
  entry.url = apiUrl(opts.path, { ...opts.params, job: entry.job })
  // An export the person started keeps their session in use while it waits and streams (its polls
  // would otherwise be marked idle, and a long sync's wait ended it at SESSION_IDLE_MIN).
  const release = holdActive()
  try {
    if (opts.waitForSync) {
      await waitForSync(id, opts.waitForSync, controller.signal)
      // Left the page meanwhile: the tray offers the download rather than starting it unasked.
      if (window.location.pathname + window.location.search !== origin) {
        update(id, { phase: 'ready', secondsLeft: null })
        return
      }
      update(id, { phase: 'running', secondsLeft: null })
    }
    await download(id)
  } catch (err) {
    fail(id, err, controller.signal)
  } finally {
    release()
  }
}

function fail(id: number, err: unknown, signal: AbortSignal) {
  if (signal.aborted) update(id, { phase: 'cancelled', by: 'you' })
  else update(id, { phase: 'failed', reason: reasonOf(toApiError(err)) })
  running.delete(id)
}

/** Starts the download and follows it on the server until it ends. */
async function download(id: number) {
  const entry = running.get(id)
  if (!entry?.url) return
  const { controller, job } = entry
  openDownload(entry.url)
  const asked = performance.now()
  let firstRowsAt: number | null = null
  let firstRows = 0
  let misses = 0
  for (;;) {
    await sleep(POLL_MS, controller.signal)
    let p: ExportProgress
    try {
      p = parseWire(
        INDEX_ANSWERS.exportProgress,
        await getJson(INDEX_PATHS.exportProgress, { job }, controller.signal),
        'The Switchboard server',
      )
    } catch (err) {
      // The download's request may not have reached the server yet.
      if (err instanceof ApiError && err.kind === 'not_found' && performance.now() - asked < START_GRACE_MS) continue
      // A lost poll says nothing about the download itself: a few in a row are let pass.
      if (isRetryable(err) && ++misses < 4) continue
      if (err instanceof ApiError && err.kind === 'not_found')
        throw new ApiError('server_error', 'The browser did not start the download (nothing reached the server). Try again.', 0)
      throw err
    }
    misses = 0
    // Waiting for a slot on the server (its limits on exports at once): the download's request is
    // held there until its turn, and the tray says where it stands in line.
    if (p.state === 'queued') {
      update(id, { phase: 'queued', position: p.queue?.position ?? 1, startsInS: p.queue?.startsInS ?? null, secondsLeft: null })
      continue
    }
    const now = performance.now()
    if (firstRowsAt === null && p.rows > 0) {
      firstRowsAt = now
      firstRows = p.rows
    }
    const secondsLeft = p.total === null || firstRowsAt === null ? null : timeLeft(p.rows - firstRows, p.total - p.rows, now - firstRowsAt)
    update(id, {
      ...(p.state === 'running' ? { phase: 'running' as const } : {}),
      rows: p.rows,
      bytes: p.bytes,
      secondsLeft,
      ...(p.total !== null ? { total: p.total } : {}),
      ...(p.fileName ? { fileName: p.fileName } : {}),
    })
    if (p.state === 'running') continue
    running.delete(id)
    if (p.state === 'done') update(id, { phase: 'saved', secondsLeft: 0 })
    else if (p.state === 'cancelled') update(id, { phase: 'cancelled', by: p.cancelledBy ?? 'you' })
    else {
      const e = p.error ?? { kind: 'server_error' as const, message: 'The export stopped on the server.' }
      const err = new ApiError(e.kind, e.message, 0, { field: e.field, cause: e.cause, retryAfterMs: e.retryAfterMs })
      // Refused for the server's own limits (429 with a time to come back): its message says all,
      // and the kind's title (an upstream that took too long) would not be true of it.
      update(id, { phase: 'failed', reason: err.extra.retryAfterMs !== undefined ? err.message : reasonOf(err) })
    }
    return
  }
}

/**
 * Cancel: before the download starts, the wait stops here; once it is queued or runs on the
 * server, the server is asked to stop (it takes it out of line, or cuts the download) and the job
 * follows its record to "cancelled".
 */
export function cancelExport(id: number) {
  const entry = running.get(id)
  const job = getJobs().find((j) => j.id === id)
  if (!entry || !job) return
  if (job.phase !== 'running' && job.phase !== 'queued') {
    entry.controller.abort()
    if (job.phase === 'ready') fail(id, null, entry.controller.signal)
    return
  }
  postJson(INDEX_PATHS.exportCancel, { job: entry.job }).catch((err: unknown) => {
    // The server forgot it (restarted, or the record aged out): stop following it here. A cancel
    // before the download's request arrives is remembered there, and that request refused.
    if (err instanceof ApiError && err.kind === 'not_found') {
      entry.controller.abort()
      fail(id, err, entry.controller.signal)
    } else update(id, { phase: 'failed', reason: `Could not cancel. ${reasonOf(toApiError(err))}` })
  })
}

/** The download offered after a wait that ended on another page. */
export function saveExport(id: number) {
  const job = getJobs().find((j) => j.id === id)
  if (job?.phase !== 'ready') return
  update(id, { phase: 'running' })
  void download(id).catch((err: unknown) => {
    fail(id, err, running.get(id)?.controller.signal ?? new AbortController().signal)
  })
}

export function dismissExport(id: number) {
  running.get(id)?.controller.abort()
  running.delete(id)
  removeJob(id)
}
