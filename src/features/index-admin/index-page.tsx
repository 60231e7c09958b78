import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useMe } from '../../api/me'
import { forgetIndexed, startSync } from '../../api/index-admin'
import { indexKeys, useIndexStatus, type NumberIndexStatus } from '../../api/index-api'
import { ErrorAlert } from '../../components/alert'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { OverallProgress } from '../../components/index-progress'
import { formatCount } from '../../lib/count'
import { formatDate, zoneLabel } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'

const STATE_WORDS: Record<string, string> = {
  never: 'Not indexed',
  queued: 'Waiting to sync',
  syncing: 'Syncing',
  idle: 'Up to date',
  paused: 'Paused',
  error: 'Stopped by an error',
}

const ms = (iso: string | null) => (iso ? Date.parse(iso) : null)

/**
 * The message index at a glance: what each number holds, how fresh it is, syncs in progress,
 * and the two actions on it: index everything, and forget (admins only; the server refuses
 * anyone else whatever this page shows).
 */
export function IndexPage() {
  const index = useIndexStatus()
  const me = useMe()
  const isAdmin = me.data?.user?.role === 'admin'
  const client = useQueryClient()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [notice, setNotice] = useState('')
  const [confirming, setConfirming] = useState<string | null>(null)

  const act = async (what: () => Promise<string>) => {
    setBusy(true)
    setError(null)
    try {
      setNotice(await what())
      await client.invalidateQueries({ queryKey: indexKeys.all })
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
      setConfirming(null)
    }
  }
  const indexAll = () =>
    act(async () => {
      await startSync({ all: true })
      return 'Indexing every number of the account has started.'
    })
  const syncOne = (n: NumberIndexStatus) =>
    act(async () => {
      await startSync({ number: n.number, tid: n.tid || undefined })
      return `Sync of ${formatPhone(n.number)} started.`
    })
  const forget = (number: string | null) =>
    act(async () => {
      const gone = await forgetIndexed(number ? { number } : { all: true })
      return `Forgot ${formatCount(gone)} messages ${number ? `of ${formatPhone(number)}` : 'of every number'}.`
    })

  const status = index.status
  const numbers = status?.numbers ?? []
  const f = status?.freshness
  return (
    <section aria-labelledby="index-heading">
      <h1 id="index-heading" className="text-xl font-semibold">
        Message index
      </h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-700">
        A copy of the account&apos;s messages kept on this server, so search, whole threads, charts and uncapped exports can see every
        message. It holds customer messages: forget what is no longer needed.
      </p>
      {index.error ? <ErrorAlert error={index.error} onRetry={() => void index.refetch()} where="the index status" /> : null}
      {error ? <ErrorAlert error={error} where="the index" /> : null}
      <p role="status" className="mt-2 text-sm">
        {notice}
      </p>
      {index.loading ? (
        <TableSkeleton label="Loading the index status" />
      ) : !index.available ? (
        <EmptyState title="The message index is off">
          Search, whole threads, charts and uncapped exports need it. Whoever runs this Switchboard can turn it on (INDEX=on).
        </EmptyState>
      ) : (
        <>
          <div className="mt-3 flex flex-wrap items-center gap-3">
            <p className="text-sm">
              {formatCount(f?.numbersComplete ?? 0)} of {formatCount(f?.numbersKnown ?? 0)} numbers fully indexed
              {f?.indexedUpTo ? `, up to ${formatDate(ms(f.indexedUpTo), 'local')} (${zoneLabel('local')})` : ''}
              {f && f.syncing.length > 0 ? `; ${formatCount(f.syncing.length)} syncing` : ''}. Engine:{' '}
              {status?.engine === 'postgres' ? 'PostgreSQL server' : 'PGlite (embedded)'}.
            </p>
            <button type="button" className="btn print:hidden" onClick={() => void indexAll()} disabled={busy}>
              Index all numbers
            </button>
            {isAdmin ? (
              confirming === '*' ? (
                <span className="flex items-center gap-2">
                  <span className="text-sm">Delete every indexed message of every number?</span>
                  <button type="button" className="btn border-red-700 text-red-800" onClick={() => void forget(null)} disabled={busy}>
                    Forget everything
                  </button>
                  <button type="button" className="btn" onClick={() => setConfirming(null)}>
                    Cancel
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  className="btn print:hidden"
                  onClick={() => setConfirming('*')}
                  disabled={busy || numbers.length === 0}
                >
                  Forget all…
                </button>
              )
            ) : me.data?.user?.role === 'viewer' ? (
              // The missing control says who has it, as the missing exports do.
              <p className="text-sm text-slate-700">Forgetting indexed messages is for admins: ask one of your team&rsquo;s admins.</p>
            ) : null}
          </div>
          {status?.progress ? <OverallProgress progress={status.progress} /> : null}
          {numbers.length === 0 ? (
            <EmptyState title="Nothing indexed yet">Open a number&apos;s history, or index all numbers, to start.</EmptyState>
          ) : (
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
                    <tr key={n.number} className="border-t border-slate-200 align-top">
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
                      <td className="p-2">{n.newestDate ? formatDate(ms(n.newestDate), 'local') : '—'}</td>
                      <td className="p-2">{n.lastSyncedAt ? formatDate(ms(n.lastSyncedAt), 'local') : 'never'}</td>
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
                                <button
                                  type="button"
                                  className="btn border-red-700 text-red-800"
                                  onClick={() => void forget(n.number)}
                                  disabled={busy}
                                >
                                  Delete {formatCount(n.indexed)} messages
                                </button>
                                <button type="button" className="btn" onClick={() => setConfirming(null)}>
                                  Cancel
                                </button>
                              </>
                            ) : (
                              <button
                                type="button"
                                className="btn"
                                onClick={() => setConfirming(n.number)}
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
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  )
}
