import { useLayoutEffect, useRef, useState } from 'react'
import { cancelExport, dismissExport, saveExport } from '../api/export-jobs'
import { useExportJobs, type ExportJob } from '../api/export-store'
import { formatBytes, formatCount, formatDuration, formatOrdinal, formatWait } from '../lib/count'

/**
 * Every streamed export, in a tray that lives in the layout: it stays through navigation, shows
 * rows written of how many, the size so far and the time left (or, for a whole history still
 * being indexed, how far its sync has come; or, waiting for a slot on the server, its place in
 * line and when it should start), and offers Cancel while running. The file itself is
 * the browser's download (src/api/export-jobs.ts); the tray reports the server's side of it, and
 * offers the download when a wait for indexing ended after the user left the page. Not printed.
 * It floats over the page's corner, so the page gets as much room at its end as the tray takes
 * (on a phone, where it spans the width, nothing stays behind it); "Hide" folds it to one line
 * that still says how many are running.
 */
export function ExportTray() {
  const jobs = useExportJobs()
  const [folded, setFolded] = useState(false)
  const tray = useRoomBelow(jobs.length > 0)
  if (jobs.length === 0) return null
  const running = jobs.filter((j) => j.phase === 'running' || j.phase === 'waiting').length
  const queued = jobs.filter((j) => j.phase === 'queued').length
  const active = (j: ExportJob) => j.phase === 'running' || j.phase === 'waiting' || j.phase === 'queued'
  const summary = [running > 0 ? `${formatCount(running)} running` : '', queued > 0 ? `${formatCount(queued)} queued` : ''].filter(Boolean)
  return (
    <section
      ref={tray}
      aria-label="Exports"
      className={`fixed right-3 bottom-3 z-40 max-w-[calc(100vw-1.5rem)] rounded border border-slate-300 bg-white text-sm shadow-lg print:hidden ${folded ? 'px-3 py-1.5' : 'w-96 p-3'}`}
    >
      <div className="flex items-center justify-between gap-3">
        <h2 className="font-semibold">
          Exports
          {folded ? <span className="font-normal text-slate-700"> · {summary.length > 0 ? summary.join(', ') : 'done'}</span> : null}
        </h2>
        <button
          type="button"
          className="btn"
          aria-expanded={!folded}
          onClick={() => {
            setFolded(!folded)
          }}
        >
          {folded ? 'Show' : 'Hide'}
          <span className="sr-only"> exports</span>
        </button>
      </div>
      <ul className="mt-1 flex flex-col gap-2" hidden={folded}>
        {jobs.map((j) => (
          <li key={j.id} className="border-t border-slate-200 pt-2" aria-label={`Export: ${j.label}`}>
            {/* Words wrap whole; only a token longer than the line (a file name) may break. */}
            <p className="font-medium break-normal [overflow-wrap:break-word]">{j.label}</p>
            {j.phase === 'waiting' ? (
              <>
                <progress
                  className="mt-1 w-full"
                  aria-label={`Indexing before ${j.label}`}
                  max={j.of ?? undefined}
                  value={j.of ? Math.min(j.indexed, j.of) : undefined}
                />
                <p aria-live="polite">
                  Waiting for this number to be indexed:{' '}
                  <span className="tabular-nums">
                    {formatCount(j.indexed)}
                    {j.of !== null ? ` of ${formatCount(j.of)}` : ''} messages so far
                    {j.secondsLeft !== null ? `, ${formatDuration(j.secondsLeft)} left` : ''}
                  </span>
                  . The file then holds every message.
                </p>
              </>
            ) : j.phase === 'queued' ? (
              <>
                <p aria-live="polite">
                  Queued — {formatOrdinal(j.position)} in line,{' '}
                  {j.startsInS !== null ? `starts in ${formatWait(j.startsInS)}` : 'starts when an export ahead of it ends'}.
                </p>
                <p className="text-slate-700">The server runs a few exports at a time; this one starts by itself.</p>
              </>
            ) : j.phase === 'running' ? (
              <>
                <progress
                  className="mt-1 w-full"
                  aria-label={`Progress of ${j.label}`}
                  max={j.total ?? undefined}
                  value={j.total ? Math.min(j.rows, j.total) : undefined}
                />
                <p className="tabular-nums" aria-live="polite">
                  {formatCount(j.rows)} {j.total !== null ? `of ${formatCount(j.total)} ` : ''}rows written · {formatBytes(j.bytes)}
                  {j.secondsLeft !== null && j.secondsLeft > 0 ? ` · ${formatDuration(j.secondsLeft)} left` : ''}
                </p>
                <p className="text-slate-700">Saving into your browser&apos;s downloads as it arrives.</p>
              </>
            ) : (
              <p role="status" className="tabular-nums">
                {j.phase === 'saved'
                  ? `Saved ${formatCount(j.rows)} rows (${formatBytes(j.bytes)}) to your browser's downloads as ${j.fileName}.`
                  : null}
                {j.phase === 'ready' ? 'The number is wholly indexed: the export is ready to download.' : null}
                {j.phase === 'cancelled' && j.by === 'you'
                  ? `Cancelled after ${formatCount(j.rows)} rows. The download stopped unfinished: no complete file was saved.`
                  : null}
                {j.phase === 'cancelled' && j.by === 'browser'
                  ? `The browser stopped the download after ${formatCount(j.rows)} rows (cancelled in its downloads list, or the connection dropped). No complete file was saved.`
                  : null}
                {j.phase === 'failed' ? `Stopped after ${formatCount(j.rows)} rows. ${j.reason}` : null}
              </p>
            )}
            <div className="mt-1 flex gap-2">
              {active(j) ? (
                <button
                  type="button"
                  className="btn"
                  onClick={() => {
                    cancelExport(j.id)
                  }}
                >
                  Cancel export
                </button>
              ) : null}
              {j.phase === 'ready' ? (
                <button
                  type="button"
                  className="btn"
                  onClick={() => {
                    saveExport(j.id)
                  }}
                >
                  Download {j.fileName}
                </button>
              ) : null}
              {!active(j) ? (
                <button
                  type="button"
                  className="btn"
                  onClick={() => {
                    dismissExport(j.id)
                  }}
                >
                  Dismiss
                </button>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  )
}

/** Pads the page's end by the tray's height (and its gap) while it shows, so the page scrolls clear of it. */
function useRoomBelow(shown: boolean) {
  const ref = useRef<HTMLElement>(null)
  useLayoutEffect(() => {
    const el = ref.current
    if (!shown || !el) return
    const body = document.body
    const fit = () => {
      body.style.paddingBottom = `${Math.ceil(el.getBoundingClientRect().height) + 24}px`
    }
    fit()
    const watch = new ResizeObserver(fit)
    watch.observe(el)
    return () => {
      watch.disconnect()
      body.style.paddingBottom = ''
    }
  }, [shown])
  return ref
}
