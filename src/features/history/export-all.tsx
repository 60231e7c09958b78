import { useRef, useState } from 'react'
import { fitFileName } from '../../../contract/file-name'
import { INDEX_PATHS } from '../../../contract/index-api'
import { toApiError, wordsFor } from '../../api/errors'
import { startExport } from '../../api/export-jobs'
import { fetchHistory, type Message } from '../../api/history'
import { download } from '../../lib/download'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'
import { zoneName, type Zone } from '../../lib/dates'
import { exportHeader, messageRow } from './columns'

export const EXPORT_CAP = 50_000

type State =
  | { phase: 'idle' }
  | { phase: 'running'; done: number; goal: number }
  | { phase: 'stopped'; done: number; goal: number; reason: string; rows: Message[] }
  | { phase: 'saved'; done: number; goal: number; partial: boolean }

/**
 * "Export the whole history". With the message index on it streams every message from the
 * server (/api/index/export), with no cap, through the export tray; if the number is still being
 * indexed (or never was), the export first waits for its sync in the tray, so the file holds the
 * whole history. Without the index it falls back to ranges of HISTORY_PAGE_CAP records from the
 * upstream, capped at the newest 50,000, and says so.
 */
export function ExportAll({
  number,
  indexNumber = number,
  tid,
  total,
  index,
  zone,
  chunk,
}: {
  number: string
  /** The index's key of this history: the number, or its further line's (contract/lines.ts). */
  indexNumber?: string
  tid: string
  total: number
  /** Null with the index off; else what it holds of this number, whether that is all of it, and whether an admin forgot it. */
  index: { indexed: number; complete: boolean; forgotten?: boolean } | null
  zone: Zone
  chunk: number
}) {
  if (index !== null) {
    const goal = index.complete ? index.indexed : Math.max(total, index.indexed)
    return (
      <section aria-labelledby="export-all-heading" className="rounded border border-slate-200 bg-white p-3">
        <h2 id="export-all-heading" className="text-sm font-semibold">
          Export the whole history
        </h2>
        <p className="mt-1 text-sm text-slate-700">
          {index.complete
            ? `Every message of this number (${formatCount(index.indexed)}), streamed from the server.`
            : index.forgotten
              ? `Every message of this number (${formatCount(goal)}). Its indexed messages were forgotten: the export indexes it again first, then streams the whole history.`
              : `Every message of this number (${formatCount(goal)}). It is still being indexed (${formatCount(index.indexed)} so far): the export waits for that, then streams the whole history.`}{' '}
          Progress shows in the export tray; you can leave this page meanwhile.
        </p>
        <div className="mt-2 flex flex-wrap gap-1">
          {(['csv', 'xlsx'] as const).map((format) => (
            <button
              key={format}
              type="button"
              className="btn"
              onClick={() =>
                startExport({
                  path: INDEX_PATHS.export,
                  params: { numbers: indexNumber, format, tz: zoneName(zone) },
                  label: `History of ${formatPhone(number)}`,
                  fileName: fitFileName({ subject: 'history', scope: number, filters: [], rows: goal, ext: format }),
                  total: goal,
                  ...(index.complete ? {} : { waitForSync: { number: indexNumber, tid, total } }),
                })
              }
            >
              {`Export all ${formatCount(goal)} messages as ${format === 'csv' ? 'CSV' : 'Excel (.xlsx)'}`}
            </button>
          ))}
        </div>
      </section>
    )
  }
  return <CappedExport number={number} tid={tid} total={total} zone={zone} chunk={chunk} />
}

function CappedExport({ number, tid, total, zone, chunk }: { number: string; tid: string; total: number; zone: Zone; chunk: number }) {
  const [state, setState] = useState<State>({ phase: 'idle' })
  const abort = useRef<AbortController | null>(null)
  const goal = Math.min(total, EXPORT_CAP)

  const save = async (rows: Message[], partial: boolean) => {
    const csv = await import('../../lib/csv')
    const name = csv.exportFileName(
      [
        'history',
        number,
        partial ? `partial-newest-${rows.length}` : `newest-${rows.length}-of-${total}`,
        zone === 'utc' ? 'utc' : 'local',
      ],
      'csv',
    )
    download(
      name,
      csv.toCsv(
        exportHeader(zone),
        rows.map((m) => messageRow(m, zone, { number, tid, total })),
      ),
      'text/csv;charset=utf-8',
    )
  }

  const run = async () => {
    const controller = new AbortController()
    abort.current = controller
    const rows: Message[] = []
    setState({ phase: 'running', done: 0, goal })
    try {
      // One request never asks for more than the server's HISTORY_PAGE_CAP.
      for (let start = 1; start <= goal; start += chunk) {
        const end = Math.min(start + chunk - 1, goal)
        const page = await fetchHistory(number, tid, start, end, controller.signal)
        rows.push(...page.messages)
        setState({ phase: 'running', done: rows.length, goal })
        if (page.messages.length === 0) break
      }
      await save(rows, false)
      setState({ phase: 'saved', done: rows.length, goal, partial: false })
    } catch (err) {
      const e = toApiError(err)
      const reason = controller.signal.aborted ? 'You cancelled the export.' : `${wordsFor(e).title}: ${e.extra.cause ?? e.message}`
      setState({ phase: 'stopped', done: rows.length, goal, reason, rows })
    } finally {
      abort.current = null
    }
  }

  return (
    <section aria-labelledby="export-all-heading" className="rounded border border-slate-200 bg-white p-3">
      <h2 id="export-all-heading" className="text-sm font-semibold">
        Export the whole history
      </h2>
      {total > EXPORT_CAP ? (
        <p className="mt-1 text-sm text-amber-950">
          This history holds {formatCount(total)} messages. Without the message index the export is capped at the newest{' '}
          {formatCount(EXPORT_CAP)}; use the page export for older ranges.
        </p>
      ) : null}
      {state.phase === 'running' ? (
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <label className="flex items-center gap-2 text-sm">
            Export progress
            <progress max={state.goal} value={state.done} className="w-48" />
          </label>
          <span className="text-sm tabular-nums" aria-live="polite">
            {formatCount(state.done)} of {formatCount(state.goal)} messages
          </span>
          <button type="button" className="btn" onClick={() => abort.current?.abort()}>
            Cancel export
          </button>
        </div>
      ) : (
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <button type="button" className="btn" onClick={() => void run()} disabled={total === 0}>
            Export all {formatCount(goal)} messages as CSV
          </button>
          {state.phase === 'saved' ? (
            <p role="status" className="text-sm">
              Saved {formatCount(state.done)} messages.
            </p>
          ) : null}
          {state.phase === 'stopped' ? (
            <div role="status" className="text-sm">
              <p>
                Export stopped after {formatCount(state.done)} of {formatCount(state.goal)} messages. {state.reason}
              </p>
              {state.done > 0 ? (
                <button
                  type="button"
                  className="btn mt-1"
                  onClick={() => {
                    void save(state.rows, true)
                    setState({ phase: 'saved', done: state.done, goal: state.goal, partial: true })
                  }}
                >
                  Save the {formatCount(state.done)} messages fetched
                </button>
              ) : null}
            </div>
          ) : null}
        </div>
      )}
    </section>
  )
}
