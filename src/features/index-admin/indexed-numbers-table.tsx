import type { NumberIndexStatus } from '../../api/index-api'
import { formatCount } from '../../lib/count'
import { formatDate } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { isoMs } from './iso-ms'
import type { IndexActions } from './use-index-actions'

const STATE_WORDS: Record<string, string> = {
  never: 'Not indexed',
  queued: 'Waiting to sync',
  syncing: 'Syncing',
  idle: 'Up to date',
  paused: 'Paused',
  error: 'Stopped by an error',
}

/** One row per number the index knows: its state, what it holds, and its sync and forget buttons. */
export function IndexedNumbersTable({
  numbers,
  isAdmin,
  actions,
}: {
  numbers: NumberIndexStatus[]
  isAdmin: boolean
  actions: IndexActions
}) {
  return (
    <div className="mt-3 overflow-x-auto">
      <table className="w-full text-sm" aria-label="Indexed numbers">
        <thead>
          <tr className="text-left">
            <th scope="col" className="p-2">
              Number
            </th>
            <th scope="col" className="p-2">
              State
            </th>
            <th scope="col" className="p-2 text-right">
              Messages indexed
            </th>
            <th scope="col" className="p-2">
              Newest message
            </th>
            <th scope="col" className="p-2">
              Last synced
            </th>
            <th scope="col" className="p-2 print:hidden">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {numbers.map((n) => (
            <IndexedNumberRow key={n.number} n={n} isAdmin={isAdmin} actions={actions} />
          ))}
        </tbody>
      </table>
    </div>
  )
}

function IndexedNumberRow({ n, isAdmin, actions }: { n: NumberIndexStatus; isAdmin: boolean; actions: IndexActions }) {
  const { busy, confirming, setConfirming, syncOne, forget } = actions
  return (
    <tr className="border-t border-slate-200 align-top">
      <th scope="row" className="p-2 text-left font-normal">
        {formatPhone(n.number)}
      </th>
      <td className="p-2">
        {STATE_WORDS[n.state] ?? n.state}
        {n.progress ? (
          <progress
            className="ml-2 align-middle"
            max={n.progress.total || 1}
            value={n.progress.done}
            aria-label={`Sync of ${formatPhone(n.number)}`}
          >
            {formatCount(n.progress.done)} of {formatCount(n.progress.total)}
          </progress>
        ) : null}
        {n.error ? <p className="text-xs text-red-800">{n.error}</p> : null}
      </td>
      <td className="p-2 text-right tabular-nums">
        {formatCount(n.indexed)}
        {n.upstreamTotal !== null && n.upstreamTotal !== n.indexed ? ` of ${formatCount(n.upstreamTotal)}` : ''}
      </td>
      <td className="p-2">{n.newestDate ? formatDate(isoMs(n.newestDate), 'local') : '—'}</td>
      <td className="p-2">{n.lastSyncedAt ? formatDate(isoMs(n.lastSyncedAt), 'local') : 'never'}</td>
      <td className="p-2 print:hidden">
        <span className="flex flex-wrap gap-2">
          <button
            type="button"
            className="btn"
            onClick={() => void syncOne(n)}
            disabled={busy}
            aria-label={`Sync now: ${formatPhone(n.number)}`}
          >
            Sync now
          </button>
          {isAdmin ? (
            confirming === n.number ? (
              <>
                <button type="button" className="btn border-red-700 text-red-800" onClick={() => void forget(n.number)} disabled={busy}>
                  Delete {formatCount(n.indexed)} messages
                </button>
                <button
                  type="button"
                  className="btn"
                  onClick={() => {
                    setConfirming(null)
                  }}
                >
                  Cancel
                </button>
              </>
            ) : (
              <button
                type="button"
                className="btn"
                onClick={() => {
                  setConfirming(n.number)
                }}
                disabled={busy}
                aria-label={`Forget…: ${formatPhone(n.number)}`}
              >
                Forget…
              </button>
            )
          ) : null}
        </span>
      </td>
    </tr>
  )
}
