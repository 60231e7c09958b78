import { can } from '../../../contract/roles'
import { useMe } from '../../api/me'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import type { IndexStatus } from '../../api/index-api'
import { indexNumbersPageQuery, useIndexSummary } from '../../api/index-status'
import { ErrorAlert } from '../../components/alert'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { OverallProgress } from '../../components/index-progress'
import { formatDate } from '../../lib/dates'
import { IndexSummary } from './index-summary'
import { IndexedNumbersTable, ROWS_STEP } from './indexed-numbers-table'
import { useIndexActions, type IndexActions } from './use-index-actions'

/**
 * The message index at a glance: what each number holds, how fresh it is, syncs in progress,
 * and the two actions on it: index everything, and forget (admins only; the server refuses
 * anyone else whatever this page shows).
 */
export function IndexPage() {
  // The summary and the table's first page are asked for together: both are a few kilobytes (the
  // page is 100 numbers, found and counted by the server, where the whole list was 2.7 MB on an
  // account of 10,000 and the summary waited behind it on PGlite's one connection).
  const summary = useIndexSummary()
  const actions = useIndexActions()
  const [typed, setTyped] = useState('')
  const [limit, setLimit] = useState(ROWS_STEP)
  const page = useQuery(indexNumbersPageQuery(typed.replace(/\D/g, ''), limit))
  const table: TablePage = {
    status: page.data,
    error: page.error,
    loading: page.isPending,
    finding: page.isPlaceholderData,
    refetch: () => void page.refetch(),
    typed,
    onTyped: (t) => {
      setTyped(t)
      setLimit(ROWS_STEP)
    },
    onMore: () => {
      setLimit(limit + ROWS_STEP)
    },
  }
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
      {summary.loading && !page.data ? (
        <TableSkeleton label="Loading the index status" />
      ) : (
        <IndexBody summary={summary.status} index={table} actions={actions} />
      )}
    </section>
  )
}

/** The table's page of numbers as asked for, and what the find box and "Show more" change. */
interface TablePage {
  status: IndexStatus | undefined
  error: unknown
  loading: boolean
  /** The rows shown are the last answer's, while the one for what was typed is on its way. */
  finding: boolean
  refetch: () => void
  typed: string
  onTyped: (typed: string) => void
  onMore: () => void
}

function IndexBody({ summary, index, actions }: { summary: IndexStatus | undefined; index: TablePage; actions: IndexActions }) {
  const me = useMe()
  const role = me.data?.user?.role
  const status = index.status ?? (index.error ? undefined : summary)
  const numbers = index.status?.numbers ?? []
  const matched = index.status?.numbersMatched ?? numbers.length
  const known = status?.freshness.numbersKnown ?? 0
  return (
    <>
      {index.error ? <ErrorAlert error={index.error} onRetry={index.refetch} where="the index status" /> : null}
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
          ) : known === 0 && status.accountListingFailure ? (
            // The provider down at first start: its answer, not "nothing indexed yet" as if no one had tried.
            <EmptyState title="The account’s numbers could not be listed">
              <p>
                Asking the messaging provider for them failed: {status.accountListingFailure.message} (
                {formatDate(Date.parse(status.accountListingFailure.at), 'local')}). Nothing can be indexed until the list is read. The
                server asks again on its own, a minute later and then less often
                {role === 'admin' ? '; Index all numbers asks now.' : '; an admin can ask now with Index all numbers.'}
              </p>
            </EmptyState>
          ) : known === 0 ? (
            <EmptyState title="Nothing indexed yet">Open a number&apos;s history, or index all numbers, to start.</EmptyState>
          ) : (
            <IndexedNumbersTable
              numbers={numbers}
              matched={matched}
              known={known}
              typed={index.typed}
              finding={index.finding}
              onTyped={index.onTyped}
              onMore={index.onMore}
              isAdmin={!!role && can(role, 'forgetMessages')}
              actions={actions}
            />
          )}
        </>
      )}
    </>
  )
}
