import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { useIndexStatus, type NumberIndexStatus } from '../api/index-api'
import { startSync } from '../api/index-admin'
import { useAccountListing } from '../api/numbers'
import { formatCount } from '../lib/count'
import { formatPhone } from '../lib/phone'
import { EmptyState, TableSkeleton } from './empty-state'
import { IndexOffAlert } from './index-off-alert'
import { toApiError, wordsFor } from '../api/errors'

/**
 * What the index can tell a page built from it (the desk, the charts): still loading, off, or
 * holding nothing yet (each shown in its own words), else the page. `admin` decides whether
 * "Index all numbers" is offered; `refresh`, the queries asked again as each number finishes.
 */
export function IndexGate({
  admin,
  what,
  number = '',
  refresh,
  children,
}: {
  admin: boolean | null
  what: string
  /** The number the page's link names, if any: one the index does not know is said so, not reported on as if it sent nothing. */
  number?: string
  refresh: readonly unknown[]
  children: ReactNode
}) {
  const index = useIndexStatus()
  if (index.loading) return <TableSkeleton label="Checking the message index" />
  if (!index.available) return <IndexOffAlert error={index.error} where={what} />
  const numbers = index.status?.numbers ?? []
  const indexed = numbers.reduce((a, n) => a + n.indexed, 0)
  if (indexed === 0) return <NothingIndexed admin={admin} numbers={numbers} onIndexing={() => void index.refetch()} what={what} />
  // Indexed: messages held, or a history the upstream says is empty (0 of 0 is whole, not "not indexed yet").
  if (number && !numbers.some((n) => n.number === number && (n.indexed > 0 || n.upstreamTotal === 0)))
    return <NumberNotIndexed number={number} admin={admin} facts={numbers.find((n) => n.number === number)} what={what} />
  return (
    <>
      <IndexingNote numbers={numbers} refresh={refresh} />
      {children}
    </>
  )
}

/**
 * A link's number with nothing indexed: one the account does not list is said so; one it lists
 * is not indexed yet (or is being indexed), with a way to index it for an admin. Before, both read
 * "not a number of this account", which was false of every number before its first sync.
 */
function NumberNotIndexed({
  number,
  admin,
  facts,
  what,
}: {
  number: string
  admin: boolean | null
  facts: NumberIndexStatus | undefined
  what: string
}) {
  const listing = useAccountListing(number)
  const { state: starting, start, failure } = useStartIndexing()
  if (listing.loading) return <TableSkeleton label="Checking the account’s numbers" />
  const listed = listing.entries[0]
  if (!listed && !listing.failed && !facts)
    return (
      <EmptyState title={`${formatPhone(number)} is not a number of this account`}>
        <p>The account lists no number {number}. Choose one of the account’s numbers above.</p>
      </EmptyState>
    )
  if (!listed && !facts)
    return (
      <EmptyState title={`The message index holds nothing of ${formatPhone(number)}`}>
        <p>The account’s list of numbers could not be read to say whether it holds this one. Choose a number above.</p>
      </EmptyState>
    )
  const busy = facts?.state === 'syncing' || facts?.state === 'queued' || starting === 'started'
  // Its indexing stopped on an error: that, in the sync's own words, not "not indexed yet" (the
  // Index page and Search said the error, the desk and the charts an offer to start).
  if (!busy && facts && (facts.state === 'error' || facts.state === 'paused') && facts.error)
    return (
      <EmptyState title={`Indexing ${formatPhone(number)} stopped`}>
        <p>
          The {what} is worked out from the message index, which holds none of this number’s messages: {facts.error}
        </p>
        {admin && listed ? (
          <StartIndexingButton
            label="Try again"
            state={starting}
            failure={failure}
            onStart={() => {
              start({ number: listed.number, tid: listed.tid })
            }}
          />
        ) : (
          <p>
            {facts.state === 'error'
              ? 'Indexing tries again on its own; an admin can also sync it on the Index page.'
              : 'An admin can sync it again on the Index page.'}
          </p>
        )}
      </EmptyState>
    )
  return (
    <EmptyState title={busy ? `${formatPhone(number)} is being indexed` : `${formatPhone(number)} is not indexed yet`}>
      <p>
        The {what} is worked out from the message index, which holds none of this number’s messages yet
        {busy ? ': this page fills in when its indexing finishes.' : '.'}
      </p>
      {busy ? null : admin && listed ? (
        <StartIndexingButton
          label="Index this number"
          state={starting}
          failure={failure}
          onStart={() => {
            start({ number: listed.number, tid: listed.tid })
          }}
        />
      ) : (
        <p>An admin can index it on the Index page.</p>
      )}
    </EmptyState>
  )
}

/**
 * While numbers are being indexed, says so: a number's waits and opt-out states are worked out
 * when its indexing finishes (the server leaves them to the sync), so until then this page shows
 * them as the number's last finished sync left them. Each time a number finishes, the desk's
 * answers are asked again.
 */
function IndexingNote({ numbers, refresh }: { numbers: readonly NumberIndexStatus[]; refresh: readonly unknown[] }) {
  const queryClient = useQueryClient()
  const busy = numbers.filter((n) => n.state === 'syncing' || n.state === 'queued')
  const seen = useRef(busy.length)
  useEffect(() => {
    if (busy.length < seen.current) void queryClient.invalidateQueries({ queryKey: refresh })
    seen.current = busy.length
  }, [busy.length, queryClient, refresh])
  const [first] = busy
  if (!first) return null
  return (
    <p role="status" className="mb-2 text-sm text-slate-700">
      {busy.length === 1
        ? `Indexing ${formatPhone(first.number)} is under way: its threads are brought up to date when it finishes, and this page updates then.`
        : `Indexing ${formatCount(busy.length)} numbers is under way: their threads are brought up to date as each finishes, and this page updates then.`}
    </p>
  )
}

export function NothingIndexed({
  admin,
  numbers,
  onIndexing,
  what,
}: {
  admin: boolean | null
  numbers: NumberIndexStatus[]
  onIndexing: () => void
  what: string
}) {
  const { state: starting, start, failure } = useStartIndexing(onIndexing)
  const syncing = numbers.some((n) => n.state === 'syncing' || n.state === 'queued') || starting === 'started'
  const failing = numbers.filter((n) => n.state === 'error' || n.error)
  if (failing.length > 0 && !syncing)
    return (
      <EmptyState title="Nothing could be indexed">
        <p>
          {formatCount(failing.length)} {failing.length === 1 ? 'number' : 'numbers'} could not be read from the messaging provider
          {failing[0]?.error ? `: ${failing[0].error}` : '.'} The desk is built from the index; indexing retries on its own.
        </p>
      </EmptyState>
    )
  return (
    <EmptyState title={syncing ? 'Indexing has started: no messages are indexed yet' : 'Nothing is indexed yet'}>
      <p>The {what} is worked out from the message index, and it holds no messages yet.</p>
      {syncing ? (
        <p role="status">This page fills in as numbers are indexed.</p>
      ) : admin ? (
        <StartIndexingButton
          label="Index all numbers"
          state={starting}
          failure={failure}
          onStart={() => {
            start({ all: true })
          }}
        />
      ) : (
        <p>An admin can index the numbers on the Index page.</p>
      )}
    </EmptyState>
  )
}

/** Starting a sync from a page (one number, or all): where it stands, and how to start it. */
export function useStartIndexing(onStarted?: () => void) {
  const [state, setState] = useState<'idle' | 'busy' | 'started' | 'failed'>('idle')
  const [failure, setFailure] = useState<string | null>(null)
  const start = (target: Parameters<typeof startSync>[0]) => {
    setState('busy')
    startSync(target).then(
      () => {
        setState('started')
        onStarted?.()
      },
      (err: unknown) => {
        setFailure(whyNotStarted(err))
        setState('failed')
      },
    )
  }
  return { state, start, failure }
}

/** The button that starts it, and what went wrong if it could not. */
export function StartIndexingButton({
  label,
  state,
  onStart,
  failure = null,
}: {
  label: string
  state: ReturnType<typeof useStartIndexing>['state']
  onStart: () => void
  /** Why it could not start (whyNotStarted). */
  failure?: string | null
}) {
  return (
    <>
      <button type="button" className="btn mt-2" disabled={state === 'busy'} onClick={onStart}>
        {label}
      </button>
      {state === 'failed' ? (
        <p role="alert">Indexing could not be started{failure ? `: ${failure}` : '.'} Try again, or use the Index page.</p>
      ) : null}
    </>
  )
}

/** Why "Index all numbers" failed, in the words every error gets (api/errors.ts), with the server's cause when it gave one. */
export function whyNotStarted(err: unknown): string {
  const e = toApiError(err)
  const cause = e.extra.cause
  return `${wordsFor(e).title}${cause ? ` (${cause})` : ''}.`
}
