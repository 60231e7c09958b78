import { can } from '../../../contract/roles'
import { useMe } from '../../api/me'
import { useIndexStatus, type IndexStatus } from '../../api/index-api'
import { useIndexSummary } from '../../api/index-status'
import { ErrorAlert } from '../../components/alert'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { OverallProgress } from '../../components/index-progress'
import { formatDate } from '../../lib/dates'
import { IndexSummary } from './index-summary'
import { IndexedNumbersTable } from './indexed-numbers-table'
import { useIndexActions, type IndexActions } from './use-index-actions'

/**
 * The message index at a glance: what each number holds, how fresh it is, syncs in progress,
 * and the two actions on it: index everything, and forget (admins only; the server refuses
 * anyone else whatever this page shows).
 */
export function IndexPage() {
  // The summary first: a few kilobytes, where the full status has an entry per number (2.7 MB on
  // an account of 10,000, built by a statement the summary queued behind on PGlite's one
  // connection). The per-number list is asked for once the summary has answered.
  const summary = useIndexSummary()
  const actions = useIndexActions()
  return (
    <section aria-labelledby="index-heading">
      <h1 id="index-heading" className="text-xl font-semibold">
        Message index
      </h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-700">
        A copy of the account&apos;s messages kept on this server, so search, whole threads, charts and uncapped exports can see every
        message. It holds customer messages: forget what is no longer needed.
      </p>
      {actions.error ? <ErrorAlert error={actions.error} where="the index" /> : null}
      <p role="status" className="mt-2 text-sm">
        {actions.notice}
      </p>
      {summary.loading ? <TableSkeleton label="Loading the index status" /> : <IndexBody summary={summary.status} actions={actions} />}
    </section>
  )
}

function IndexBody({ summary, actions }: { summary: IndexStatus | undefined; actions: IndexActions }) {
  const index = useIndexStatus()
  const me = useMe()
  const role = me.data?.user?.role
  const status = index.status ?? (index.error ? undefined : summary)
  const numbers = index.status?.numbers ?? []
  return (
    <>
      {index.error ? <ErrorAlert error={index.error} onRetry={() => void index.refetch()} where="the index status" /> : null}
      {index.loading && !status ? (
        <TableSkeleton label="Loading the index status" />
      ) : !status?.enabled ? (
        <EmptyState title="The message index is off">
          Search, whole threads, charts and uncapped exports need it. Whoever runs this Switchboard can turn it on (INDEX=on).
        </EmptyState>
      ) : (
        <>
          <IndexSummary status={status} role={role} actions={actions} />
          {status.progress ? <OverallProgress progress={status.progress} /> : null}
          {index.loading ? (
            <TableSkeleton label="Loading the indexed numbers" />
          ) : numbers.length === 0 && status.accountListingFailure ? (
            // The provider down at first start: its answer, not "nothing indexed yet" as if no one had tried.
            <EmptyState title="The account’s numbers could not be listed">
              <p>
                Asking the messaging provider for them failed: {status.accountListingFailure.message} (
                {formatDate(Date.parse(status.accountListingFailure.at), 'local')}). Nothing can be indexed until the list is read. The
                server asks again on its own, a minute later and then less often
                {role === 'admin' ? '; Index all numbers asks now.' : '; an admin can ask now with Index all numbers.'}
              </p>
            </EmptyState>
          ) : numbers.length === 0 ? (
            <EmptyState title="Nothing indexed yet">Open a number&apos;s history, or index all numbers, to start.</EmptyState>
          ) : (
            <IndexedNumbersTable numbers={numbers} isAdmin={!!role && can(role, 'forgetMessages')} actions={actions} />
          )}
        </>
      )}
    </>
  )
}
