import { toApiError, ERROR_WORDS } from './errors'
import { getStream } from './client'
import { addJob, getJobs, removeJob, update } from './export-store'
import { startSync } from './index-admin'
import { fetchNumberStatus } from './index-status'

/**
 * Streamed exports (the index's /api/index/export) as jobs that outlive the page that started
 * them: the tray in the layout shows each job's progress (rows written, of how many) and Cancel.
 *
 * The body is read with a stream reader and folded into a Blob every few megabytes, so the JS
 * heap holds at most one fold's worth of chunks; the browser keeps large Blobs in its own blob
 * store (on disk in Chromium past its memory quota). When a job finishes on the page that
 * started it, the file is saved at once; if the user has moved on, the tray offers "Save"
 * instead, so no file ever downloads by surprise. Closing the tab aborts the fetch.
 *
 * A whole-history export of a number still being indexed first waits for its sync (asking for
 * one if none runs), showing the sync's progress in the tray, so the file holds every message
 * rather than what happened to be indexed when the button was pressed.
 */

const controllers = new Map<number, AbortController>()
let nextId = 1

const FOLD_BYTES = 4 * 1024 * 1024
/** How often a waiting export asks how far the number's sync has come. */
export const WAIT_POLL_MS = 1_500

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t)
        reject(signal.reason)
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

/** A file name from Content-Disposition (`filename*=UTF-8''…` first, then `filename="…"`). */
export function dispositionName(header: string | null): string | null {
  if (!header) return null
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header)
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim())
    } catch {
      /* fall through to the plain name */
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i.exec(header)
  const name = (plain?.[1] ?? plain?.[2] ?? '').trim()
  // Only a plain file name: no path separators or control characters from a header.
  return name && !/[\\/\u0000-\u001f]/.test(name) ? name : null
}

/**
 * Counts CSV records in a stream of text chunks: line breaks outside quotes, so a message body
 * with a newline is one record, not two. The header line is not a row.
 */
export function csvRowCounter() {
  let quoted = false
  let breaks = 0
  let pendingText = false
  return {
    push(text: string) {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i)
        if (c === 34) quoted = !quoted
        else if (c === 10 && !quoted) {
          breaks++
          pendingText = false
          continue
        }
        if (c !== 13 && c !== 10) pendingText = true
      }
    },
    /** Records after the header (a last line with no final newline counts too). */
    rows: () => Math.max(0, breaks + (pendingText ? 1 : 0) - 1),
  }
}

export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

export function startExport(opts: {
  path: string
  params: Record<string, string | number | undefined>
  label: string
  fileName: string
  total: number | null
  /** A whole-history export: wait until this number is wholly indexed before streaming. */
  waitForSync?: { number: string; tid: string; total?: number }
}): number {
  const id = nextId++
  const controller = new AbortController()
  controllers.set(id, controller)
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
    params: Record<string, string | number | undefined>
    total: number | null
    waitForSync?: { number: string; tid: string; total?: number }
  },
  controller: AbortController,
  origin: string,
) {
  const counter = csvRowCounter()
  let folded = new Blob([])
  let parts: BlobPart[] = []
  let partBytes = 0
  let bytes = 0
  let lastEmit = 0
  try {
    if (opts.waitForSync) {
      await waitForSync(id, opts.waitForSync, controller.signal)
      update(id, { phase: 'running', secondsLeft: null })
    }
    const res = await getStream(opts.path, opts.params, controller.signal)
    const name = dispositionName(res.headers.get('content-disposition'))
    const type = res.headers.get('content-type') ?? 'text/csv;charset=utf-8'
    const announced = Number(res.headers.get('x-total-count') ?? NaN)
    const total = Number.isFinite(announced) ? announced : opts.total
    const streamStart = performance.now()
    update(id, { ...(name ? { fileName: name } : {}), ...(Number.isFinite(announced) ? { total: announced } : {}) })
    if (!res.body) throw new Error('The export answered with no body.')
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      // A fetch body's chunks are plain ArrayBuffer views; the DOM typing allows shared buffers.
      parts.push(value)
      partBytes += value.byteLength
      bytes += value.byteLength
      counter.push(decoder.decode(value, { stream: true }))
      if (partBytes >= FOLD_BYTES) {
        folded = new Blob([folded, ...parts])
        parts = []
        partBytes = 0
      }
      const now = performance.now()
      if (now - lastEmit > 150) {
        lastEmit = now
        const rows = counter.rows()
        update(id, { rows, bytes, secondsLeft: total === null ? null : timeLeft(rows, total - rows, now - streamStart) })
      }
    }
    const blob = new Blob([folded, ...parts], { type })
    parts = []
    const job = getJobs().find((j) => j.id === id)
    if (!job) return
    const here = window.location.pathname + window.location.search === origin
    if (here) {
      saveBlob(blob, job.fileName)
      update(id, { rows: counter.rows(), bytes, secondsLeft: 0, phase: 'saved' })
    } else update(id, { rows: counter.rows(), bytes, secondsLeft: 0, phase: 'ready', blob })
  } catch (err) {
    if (controller.signal.aborted) update(id, { phase: 'cancelled' })
    else {
      const e = toApiError(err)
      update(id, { phase: 'failed', reason: `${ERROR_WORDS[e.kind].title}: ${e.extra.cause ?? e.message}` })
    }
  } finally {
    controllers.delete(id)
  }
}

export function cancelExport(id: number) {
  controllers.get(id)?.abort()
}

export function saveExport(id: number) {
  const job = getJobs().find((j) => j.id === id)
  if (job?.phase !== 'ready') return
  saveBlob(job.blob, job.fileName)
  update(id, { phase: 'saved' })
}

export function dismissExport(id: number) {
  controllers.get(id)?.abort()
  removeJob(id)
}
