import { cancelExport, dismissExport, saveExport } from '../api/export-jobs'
import { useExportJobs } from '../api/export-store'
import { formatCount } from '../lib/count'

/**
 * Every streamed export, in a tray that lives in the layout: it stays through navigation, shows
 * rows written of how many, and offers Cancel while running and Save when a job finished after
 * the user left the page that started it. Not printed.
 */
export function ExportTray() {
  const jobs = useExportJobs()
  if (jobs.length === 0) return null
  return (
    <section
      aria-label="Exports"
      className="fixed right-3 bottom-3 z-40 w-96 max-w-[calc(100vw-1.5rem)] rounded border border-slate-300 bg-white p-3 text-sm shadow-lg print:hidden"
    >
      <h2 className="font-semibold">Exports</h2>
      <ul className="mt-1 flex flex-col gap-2">
        {jobs.map((j) => (
          <li key={j.id} className="border-t border-slate-200 pt-2" aria-label={`Export: ${j.label}`}>
            <p className="font-medium break-words">{j.label}</p>
            {j.phase === 'running' ? (
              <>
                <progress
                  className="mt-1 w-full"
                  aria-label={`Progress of ${j.label}`}
                  max={j.total ?? undefined}
                  value={j.total ? Math.min(j.rows, j.total) : undefined}
                />
                <p className="tabular-nums" aria-live="polite">
                  {formatCount(j.rows)} {j.total !== null ? `of ${formatCount(j.total)} ` : ''}rows written
                </p>
              </>
            ) : (
              <p role="status" className="tabular-nums">
                {j.phase === 'saved' ? `Saved ${formatCount(j.rows)} rows as ${j.fileName}.` : null}
                {j.phase === 'ready' ? `Finished: ${formatCount(j.rows)} rows, ready to save as ${j.fileName}.` : null}
                {j.phase === 'cancelled' ? `Cancelled after ${formatCount(j.rows)} rows. Nothing was saved.` : null}
                {j.phase === 'failed' ? `Stopped after ${formatCount(j.rows)} rows. ${j.reason}` : null}
              </p>
            )}
            <div className="mt-1 flex gap-2">
              {j.phase === 'running' ? (
                <button type="button" className="btn" onClick={() => cancelExport(j.id)}>
                  Cancel export
                </button>
              ) : null}
              {j.phase === 'ready' ? (
                <button type="button" className="btn" onClick={() => saveExport(j.id)}>
                  Save {j.fileName}
                </button>
              ) : null}
              {j.phase !== 'running' ? (
                <button type="button" className="btn" onClick={() => dismissExport(j.id)}>
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
