import { useRef, useState } from 'react'
import { fetchHistory, type Message } from '../../api/history'
import { ERROR_WORDS, toApiError } from '../../api/errors'
import { download } from '../../components/export-buttons'
import { EXPORT_HEADER, messageRow } from './columns'
import { formatCount } from '../../lib/count'

/** The proxy's page cap: one request never asks for more records than this. */
const CHUNK = 1000
export const EXPORT_CAP = 50_000

type State =
  | { phase: 'idle' }
  | { phase: 'running'; done: number; goal: number }
  | { phase: 'stopped'; done: number; goal: number; reason: string; rows: Message[] }
  | { phase: 'saved'; done: number; goal: number; partial: boolean }

/**
 * Whole-history export: ranges of CHUNK records in order, a progress bar, Cancel, and one CSV
 * at the end. Stopped (cancelled or failed) exports keep what they fetched and say so.
 */
export function ExportAll({ number, tid, total, label }: { number: string; tid: string; total: number; label: string }) {
  const [state, setState] = useState<State>({ phase: 'idle' })
  const abort = useRef<AbortController | null>(null)
  const goal = Math.min(total, EXPORT_CAP)

  const save = async (rows: Message[], partial: boolean) => {
    const csv = await import('../../lib/csv')
    const name = csv.exportFileName(['history', label, partial ? `partial-${rows.length}` : 'all'], 'csv')
    download(name, csv.toCsv(EXPORT_HEADER, rows.map(messageRow)), 'text/csv;charset=utf-8')
  }

  const run = async () => {
    const controller = new AbortController()
    abort.current = controller
    const rows: Message[] = []
    setState({ phase: 'running', done: 0, goal })
    try {
      for (let start = 1; start <= goal; start += CHUNK) {
        const end = Math.min(start + CHUNK - 1, goal)
        const page = await fetchHistory(number, tid, start, end, controller.signal)
        rows.push(...page.messages)
        setState({ phase: 'running', done: rows.length, goal })
        if (page.messages.length === 0) break
      }
      await save(rows, false)
      setState({ phase: 'saved', done: rows.length, goal, partial: false })
    } catch (err) {
      const reason = controller.signal.aborted ? 'You cancelled the export.' : `${ERROR_WORDS[toApiError(err).kind].title}: ${toApiError(err).message}`
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
          This history holds {formatCount(total)} messages. The export is capped at the newest {formatCount(EXPORT_CAP)}; use the page export for older ranges.
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
