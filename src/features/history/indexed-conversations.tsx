import { accessOf, mayDo, useMe } from '../../api/me'
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { toApiError } from '../../api/errors'
import { startSync } from '../../api/index-admin'
import { indexKeys, indexStatusQuery, partiesQuery, threadQuery, type IndexedRow, type NumberIndexStatus } from '../../api/index-api'
import { ErrorAlert } from '../../components/alert'
import { CustomerLink } from '../../components/customer-link'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { MessageBubble } from '../../components/message/bubble'
import { useHistoryDisplay } from '../../components/message/display-context'
import { formatCount } from '../../lib/count'
import { formatDate, formatDay } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { Link } from '@tanstack/react-router'
import { forgottenAt, wholeHistoryIndexed } from './index-facts'

/** Parties listed at once; the thread page filters the rest. */
const PARTIES_SHOWN = 500
/** While the number is being indexed, what is shown catches up this often. */
const SYNC_POLL_MS = 5_000

/** Reads again whenever `value` (the index's count of the number) moves, not on the first render. */
function useRefetchWhenMoved(value: number | undefined, refetch: () => Promise<unknown>) {
  const seen = useRef(value)
  useEffect(() => {
    if (seen.current === value) return
    seen.current = value
    void refetch()
  }, [value, refetch])
}

/**
 * The Conversations tab with the message index on: every party of the number with its count
 * across the whole history, and the whole thread with the chosen one, from the index (not the
 * records the history page happens to have loaded). While the number is still being indexed
 * it says so and fills in as the sync goes.
 */
export function IndexedConversations({
  number,
  tid,
  party,
  facts,
  upstreamTotal,
  onParty,
}: {
  number: string
  tid: string
  party: string | null
  facts: NumberIndexStatus | undefined
  /** The upstream's total in the history answer this page holds. */
  upstreamTotal: number
  onParty: (phone: string) => void
}) {
  const complete = wholeHistoryIndexed(facts)
  // Forgotten by an admin: nothing is indexing it, so nothing is polled or said to be on its way.
  const forgotten = forgottenAt(facts)
  // Serving the history makes the server bring this number's index up to date; while the index
  // still knows another upstream total (messages came, or went and it walks again), look again.
  const behind = !!facts && facts.state !== 'error' && facts.upstreamTotal !== null && facts.upstreamTotal !== upstreamTotal
  useQuery({ ...indexStatusQuery(), refetchInterval: behind ? SYNC_POLL_MS : false })
  const held = facts?.indexed ?? 0
  const parties = useQuery({
    ...partiesQuery(number),
    // Polled while the number is indexing, and while the index says it holds messages but no
    // party came back: read just as a re-walk wiped the number (its upstream total went down).
    refetchInterval: (q) => (forgotten === null && (!complete || (held > 0 && q.state.data?.parties.length === 0)) ? SYNC_POLL_MS : false),
  })
  // The poll stops once the sync is done, and its last answer may predate the last stored batch:
  // whenever the index's count of this number moves, read the parties again.
  const indexed = facts?.indexed
  useRefetchWhenMoved(indexed, parties.refetch)
  const list = useMemo(() => parties.data?.parties ?? [], [parties.data])
  const shown = list.slice(0, PARTIES_SHOWN)
  const selected = list.find((p) => p.party === party) ?? list[0]

  const onKey = (e: KeyboardEvent) => {
    if (!selected) return
    const i = shown.indexOf(selected)
    let next = -1
    if (e.key === 'ArrowDown') next = Math.min(i + 1, shown.length - 1)
    else if (e.key === 'ArrowUp') next = Math.max(i - 1, 0)
    else if (e.key === 'Home') next = 0
    else if (e.key === 'End') next = shown.length - 1
    if (next < 0) return
    e.preventDefault()
    const p = shown[next]
    if (p) onParty(p.party)
  }

  return (
    <div>
      {forgotten !== null ? (
        <ForgottenNotice number={number} tid={tid} at={forgotten} />
      ) : !complete ? (
        <p role="status" className="mb-2 text-sm text-amber-950">
          This number is still being indexed
          {facts && facts.upstreamTotal !== null
            ? `: ${formatCount(facts.indexed)} of ${formatCount(facts.upstreamTotal)} messages so far`
            : ''}
          . The conversations fill in as it goes.
        </p>
      ) : null}
      {parties.isError ? (
        <ErrorAlert error={parties.error} onRetry={() => void parties.refetch()} retrying={parties.isFetching} where="the party list" />
      ) : null}
      {parties.isPending ? (
        <TableSkeleton label="Loading the conversations" />
      ) : list.length === 0 ? (
        <EmptyState title="No conversations indexed yet">
          {complete
            ? 'This number has no messages with another party.'
            : forgotten !== null
              ? 'They appear here once the number is indexed again.'
              : 'They appear here as the number is indexed.'}
        </EmptyState>
      ) : (
        <div className="grid gap-3 md:grid-cols-[16rem_1fr]">
          <div>
            <h2 id="parties-heading" className="text-sm font-semibold">
              Conversations across the whole history ({formatCount(list.length)})
            </h2>
            <ul
              role="listbox"
              aria-labelledby="parties-heading"
              tabIndex={0}
              aria-activedescendant={selected ? `party-${selected.party || 'none'}` : undefined}
              onKeyDown={onKey}
              className="relative mt-1 max-h-48 overflow-auto rounded border border-slate-200 bg-white md:max-h-[60vh]"
            >
              {shown.map((p) => (
                <li
                  key={p.party}
                  id={`party-${p.party || 'none'}`}
                  role="option"
                  aria-selected={p === selected}
                  onClick={() => {
                    onParty(p.party)
                  }}
                  className={`flex cursor-pointer justify-between px-2 py-1.5 text-sm ${p === selected ? 'bg-blue-800 text-white' : 'hover:bg-slate-100'}`}
                >
                  <span>{p.party ? formatPhone(p.party) : 'Unknown party'}</span>
                  <span className="tabular-nums">
                    {formatCount(p.count)} <span className="sr-only">messages</span>
                  </span>
                </li>
              ))}
            </ul>
            {list.length > PARTIES_SHOWN ? (
              <p className="text-xs text-slate-700">
                The {formatCount(PARTIES_SHOWN)} busiest of {formatCount(list.length)}: the{' '}
                <Link to="/numbers/$number/thread" params={{ number }} search={{ tid }} className="text-blue-800 underline">
                  thread page
                </Link>{' '}
                filters them all.
              </p>
            ) : null}
          </div>
          {selected ? (
            <WholeThread key={selected.party} number={number} tid={tid} party={selected.party} live={!complete} indexed={indexed} />
          ) : null}
        </div>
      )}
    </div>
  )
}

function WholeThread({
  number,
  tid,
  party,
  live,
  indexed,
}: {
  number: string
  tid: string
  party: string
  live: boolean
  indexed: number | undefined
}) {
  const { zone } = useHistoryDisplay()
  const q = useInfiniteQuery({ ...threadQuery(number, party), refetchInterval: live ? SYNC_POLL_MS : false })
  useRefetchWhenMoved(indexed, q.refetch)
  const head = q.data?.pages[0]
  // Pages come newest first; a conversation reads oldest first.
  const rows = useMemo(() => (q.data?.pages.flatMap((p) => p.rows) ?? []).slice().reverse(), [q.data])
  const who = formatPhone(party)
  return (
    <section aria-label={`Conversation with ${who}`} className="rounded border border-slate-200 bg-white p-3">
      <p className="mb-2 text-sm">
        {head ? `The whole thread: ${formatCount(head.total)} ${head.total === 1 ? 'message' : 'messages'}` : 'Loading the thread…'}
        {head && rows.length < head.total ? `, the newest ${formatCount(rows.length)} loaded` : ''}.{' '}
        <Link to="/numbers/$number/thread" params={{ number }} search={{ tid, party, tz: zone }} className="text-blue-800 underline">
          Open the thread page with {who}
        </Link>{' '}
        to go to a date or print it.
      </p>
      {/* The party's options in the list beside cannot hold a link of their own (a listbox owns options only), so the
          customer page is offered here, for whichever party is chosen. */}
      {/\d/.test(party) ? (
        <p className="mb-2 text-sm">
          <CustomerLink party={party}>Everything about {who}, across every number</CustomerLink>
        </p>
      ) : null}
      {q.isError ? (
        <ErrorAlert
          error={q.error}
          onRetry={() => void q.refetch()}
          retrying={q.isFetching}
          keptData={rows.length > 0}
          where="the thread"
        />
      ) : null}
      {q.hasNextPage ? (
        <button type="button" className="btn mb-2" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage}>
          {q.isFetchingNextPage ? 'Loading older…' : 'Load older'}
        </button>
      ) : rows.length > 0 ? (
        <p className="mb-2 text-xs text-slate-700">Start of the thread.</p>
      ) : null}
      <ol className="flex flex-col gap-2" aria-label="Messages, oldest first">
        {rows.map((m: IndexedRow, i) => {
          const prev = rows[i - 1]
          const day = m.dateMs !== null ? formatDay(m.dateMs, zone) : null
          const newDay = day !== null && (prev === undefined || prev.dateMs === null || formatDay(prev.dateMs, zone) !== day)
          return (
            <li key={m.key} className="flex flex-col">
              {newDay ? <p className="my-2 self-center rounded bg-slate-100 px-2 text-xs text-slate-700">{day}</p> : null}
              <MessageBubble m={m} number={number} ordinal={m.ordinal} tid={tid || (m.tid ?? '')} />
            </li>
          )
        })}
      </ol>
    </section>
  )
}

/**
 * A number whose indexed messages an admin forgot: the index leaves it alone (no refresh when
 * its history is viewed), so the page says so and offers to index it again, a person's request
 * that the access log records.
 */
function ForgottenNotice({ number, tid, at }: { number: string; tid: string; at: string }) {
  const queryClient = useQueryClient()
  // Only who may forget indexes a forgotten number again (the server refuses anyone else).
  const admin = !!mayDo(accessOf(useMe().data), 'forgetMessages')
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null })
  const start = async () => {
    setState({ busy: true, error: null })
    try {
      await startSync({ number, ...(tid ? { tid } : {}) })
      await queryClient.invalidateQueries({ queryKey: indexKeys.status() })
      setState({ busy: false, error: null })
    } catch (err) {
      setState({ busy: false, error: toApiError(err).message })
    }
  }
  return (
    <div role="status" className="mb-2 text-sm text-amber-950">
      <p>
        The index&apos;s messages of this number were forgotten {formatDate(Date.parse(at), 'local')}. It is left alone until an admin
        indexes it again.
      </p>
      {admin ? (
        <button type="button" className="btn mt-1" disabled={state.busy} onClick={() => void start()}>
          {state.busy ? 'Starting…' : 'Index this number again'}
        </button>
      ) : null}
      {state.error ? <p className="mt-1 text-red-800">Could not start: {state.error}</p> : null}
    </div>
  )
}
