import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { partiesQuery, threadQuery, useIndexStatus, type IndexedRow } from '../../api/index-api'
import { ErrorAlert } from '../../components/alert'
import { CustomerIconLink, CustomerLink } from '../../components/customer-link'
import { IndexOffAlert } from '../../components/index-off-alert'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { MessageBubble } from '../../components/message/bubble'
import { HistoryDisplayContext, type HistoryDisplay } from '../../components/message/display-context'
import { MediaViewer, useMediaViewer } from '../../components/message/media-viewer'
import { PrintHeader } from '../../components/print-header'
import { formatCount } from '../../lib/count'
import { formatDate, formatDay, zoneLabel, zoneName } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import type { ThreadSearch } from '../../lib/route-params'
import { Link } from '@tanstack/react-router'
import { useSetParams } from '../../lib/navigation'
import { ZoneToggle } from '../../components/zone-toggle'
import { startExport } from '../../api/export-jobs'
import { INDEX_PATHS } from '../../../contract/index-api'
import { fitFileName } from '../../../contract/file-name'
import { formatDayOf, ThreadGoToDate } from './thread-go-to-date'

/**
 * The whole thread with one party, from the index, across the full history. It opens at the
 * message the reader clicked (`at`), marked, or else at the newest, at the bottom, and loads
 * older messages as the reader scrolls up; the scroll position is kept by the distance from the
 * bottom, so nothing jumps when older rows arrive.
 */
export function ThreadPage({ number, search }: { number: string; search: ThreadSearch }) {
  const setParams = useSetParams('/numbers/$number/thread')
  const index = useIndexStatus()
  const { tid, party, tz: zone, at } = search
  const heading = useRef<HTMLHeadingElement>(null)
  // A page opened by a link puts focus on its heading, not on <body>: a screen reader starts
  // here and a keyboard user's next Tab is inside the page.
  useEffect(() => heading.current?.focus(), [number, party])
  const { media, open: openMedia, close: closeMedia } = useMediaViewer()
  const display = useMemo<HistoryDisplay>(() => ({ zone, number, openMedia }), [zone, number, openMedia])

  return (
    <HistoryDisplayContext.Provider value={display}>
      <section aria-labelledby="thread-heading">
        <p className="text-sm print:hidden">
          <Link to="/numbers/$number" params={{ number }} search={{ tid }} className="text-blue-800 underline">
            ← History of {formatPhone(number)}
          </Link>
        </p>
        <h1 id="thread-heading" ref={heading} tabIndex={-1} className="mt-1 text-xl font-semibold">
          {/* A number never breaks at its hyphen on a phone: each stays on one line. */}
          {party ? (
            <>
              Thread between <span className="whitespace-nowrap">{formatPhone(number)}</span> and{' '}
              <span className="whitespace-nowrap">{formatPhone(party)}</span>
            </>
          ) : (
            <>
              Threads of <span className="whitespace-nowrap">{formatPhone(number)}</span>
            </>
          )}
        </h1>
        {party ? (
          <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm print:hidden">
            <p>
              <CustomerLink party={party}>Everything about {formatPhone(party)}, across every number</CustomerLink>
            </p>
            {index.available ? <ExportThread number={number} party={party} zone={zone} /> : null}
          </div>
        ) : null}
        {party && index.available ? (
          <div className="mt-2">
            <ThreadGoToDate
              number={number}
              party={party}
              zone={zone}
              date={search.date}
              at={at}
              onFound={(ordinal, date) => setParams({ at: ordinal, date })}
            />
          </div>
        ) : null}
        {index.loading ? (
          <TableSkeleton label="Checking the message index" />
        ) : !index.available ? (
          <>
            <IndexOffAlert error={index.error} where="the whole thread" />
            <p className="text-sm">
              Without the index, the{' '}
              <Link
                to="/numbers/$number"
                params={{ number }}
                search={{ tid, view: 'conversation', party }}
                className="text-blue-800 underline"
              >
                conversations view of the history
              </Link>{' '}
              shows threads within the loaded records only.
            </p>
          </>
        ) : (
          <div className="mt-3 grid gap-3 md:grid-cols-[16rem_1fr] print:block">
            <PartyList number={number} tid={tid} selected={party} zone={zone} />
            {party ? (
              <Thread
                key={`${party}|${at ?? ''}`}
                number={number}
                tid={tid}
                party={party}
                zone={zone}
                at={at}
                openedFor={search.date ? `The newest message on or before ${formatDayOf(search.date, zone)}` : 'The message you opened'}
              />
            ) : (
              <EmptyState title="Pick a party">Choose who the conversation is with from the list.</EmptyState>
            )}
          </div>
        )}
        <div className="mt-2 print:hidden">
          <ZoneToggle zone={zone} onChange={(tz) => setParams({ tz }, { replace: true })} />
        </div>
        <MediaViewer media={media} onClose={closeMedia} />
      </section>
    </HistoryDisplayContext.Provider>
  )
}

function PartyList({ number, tid, selected, zone }: { number: string; tid: string; selected: string; zone: 'local' | 'utc' }) {
  const q = useQuery(partiesQuery(number))
  const [filter, setFilter] = useState('')
  const digits = filter.replace(/\D/g, '')
  const parties = useMemo(() => {
    const all = q.data?.parties ?? []
    if (!filter.trim()) return all
    return all.filter((p) => (digits ? p.party.includes(digits) : false) || formatPhone(p.party).includes(filter.trim()))
  }, [q.data, filter, digits])
  // The chosen party is scrolled into the list's view (its own scroll only, not the page's): on a
  // phone the list shows six, and the 16th of 19 chosen from Needs reply was out of sight.
  const list = useRef<HTMLUListElement>(null)
  const loaded = q.data !== undefined
  useEffect(() => {
    const ul = list.current
    const item = ul?.querySelector<HTMLElement>('[aria-current="page"]')?.closest('li')
    if (!ul || !item) return
    if (item.offsetTop < ul.scrollTop || item.offsetTop + item.offsetHeight > ul.scrollTop + ul.clientHeight)
      ul.scrollTop = Math.max(0, item.offsetTop - (ul.clientHeight - item.offsetHeight) / 2)
  }, [selected, loaded])
  return (
    <nav aria-labelledby="parties-heading" className="print:hidden">
      <h2 id="parties-heading" className="text-sm font-semibold">
        Parties {q.data ? `(${formatCount(q.data.parties.length)})` : ''}
      </h2>
      <label className="mt-1 flex flex-col text-sm">
        Filter parties
        <input
          type="search"
          className="input"
          inputMode="tel"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value)
          }}
          placeholder="Digits of a phone"
        />
      </label>
      {q.isError ? <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="the party list" /> : null}
      {/* On a phone the list sits above the thread: a fixed height, so the thread below does not move when the parties arrive. */}
      <ul ref={list} className="relative mt-1 h-48 overflow-auto rounded border border-slate-200 bg-white md:h-auto md:max-h-[60vh]">
        {parties.slice(0, 500).map((p) => (
          // The party's customer page beside its thread link, not inside it: two links, each with its own name.
          <li key={p.party} className="flex items-center pr-1">
            <Link
              to="/numbers/$number/thread"
              params={{ number }}
              search={{ tid, party: p.party, tz: zone }}
              aria-current={p.party === selected ? 'page' : undefined}
              className={`flex min-w-0 flex-1 justify-between px-2 py-1.5 text-sm ${p.party === selected ? 'bg-blue-800 text-white' : 'hover:bg-slate-100'}`}
            >
              <span>{formatPhone(p.party)}</span>
              <span className="tabular-nums">
                {formatCount(p.count)} <span className="sr-only">{p.count === 1 ? 'message' : 'messages'}</span>
              </span>
            </Link>
            <CustomerIconLink party={p.party} />
          </li>
        ))}
      </ul>
      {parties.length > 500 ? (
        <p className="text-xs text-slate-700">Showing 500 of {formatCount(parties.length)}: filter to find others.</p>
      ) : null}
    </nav>
  )
}

/** "Messages 100 of 2,345, from <oldest loaded> to <newest loaded>": what a printout of the loaded rows (oldest first) holds. */
function printedHolds(rows: readonly IndexedRow[], total: number, zone: 'local' | 'utc'): string {
  const dates = rows.flatMap((m) => (m.dateMs === null ? [] : [m.dateMs]))
  const count = `Messages ${formatCount(rows.length)} of ${formatCount(Math.max(total, rows.length))}`
  const first = dates[0]
  const last = dates[dates.length - 1]
  if (first === undefined || last === undefined) return count
  return `${count}, from ${formatDate(first, zone)} to ${formatDate(last, zone)}`
}

/** How many pages (of THREAD_PAGE) are fetched looking for the clicked message before saying it is further back. */
const SEEK_PAGES = 30

function Thread({
  number,
  tid,
  party,
  zone,
  at,
  openedFor,
}: {
  number: string
  tid: string
  party: string
  zone: 'local' | 'utc'
  at: number | null
  /** The marked message's label: the one clicked, or the one a go-to-date found. */
  openedFor: string
}) {
  const q = useInfiniteQuery(threadQuery(number, party))
  const head = q.data?.pages[0]
  // Pages come newest first; the reader sees oldest at the top.
  const rows = useMemo(() => (q.data?.pages.flatMap((p) => p.rows) ?? []).slice().reverse(), [q.data])
  const box = useRef<HTMLDivElement>(null)
  const fromBottom = useRef<number | null>(null)
  const opened = useRef(false)

  const found = at !== null && rows.some((m) => m.ordinal === at)
  const pages = q.data?.pages.length ?? 0
  // The clicked message is older than what is loaded: fetch older pages until it is (bounded).
  const seeking = at !== null && !found && q.hasNextPage && pages < SEEK_PAGES && !q.isError
  useEffect(() => {
    if (seeking && !q.isFetchingNextPage) void q.fetchNextPage()
  }, [seeking, q])
  const gaveUp = at !== null && !found && !seeking && !q.isPending && !q.isFetchingNextPage

  // First rows: the clicked message in view, else the bottom (the newest). Older rows: keep the distance from the bottom.
  useLayoutEffect(() => {
    const el = box.current
    if (!el || rows.length === 0 || seeking) return
    if (!opened.current) {
      opened.current = true
      const target = found ? el.querySelector<HTMLElement>(`[data-ordinal="${at}"]`) : null
      // From the boxes as drawn: offsetTop counts from the nearest positioned ancestor, not from
      // this list, and put the message some 100 px lower than meant (below the window's edge
      // once the header grew a line).
      if (target) el.scrollTop += target.getBoundingClientRect().top - el.getBoundingClientRect().top - el.clientHeight / 3
      else el.scrollTop = el.scrollHeight
    } else if (fromBottom.current !== null) {
      el.scrollTop = el.scrollHeight - fromBottom.current
      fromBottom.current = null
    }
  }, [rows.length, seeking, found, at])

  const loadOlder = () => {
    const el = box.current
    if (!el || !q.hasNextPage || q.isFetchingNextPage) return
    fromBottom.current = el.scrollHeight - el.scrollTop
    void q.fetchNextPage()
  }

  const span =
    head?.firstDate && head.lastDate
      ? `${formatDate(Date.parse(head.firstDate), zone)} – ${formatDate(Date.parse(head.lastDate), zone)}`
      : null
  // The paper holds the loaded messages only (the newest, since pages load newest first): it says
  // how many of the thread's, and the dates of the first and last it holds, not the thread's span.
  const holds = head && rows.length > 0 ? printedHolds(rows, head.total, zone) : null
  return (
    <section aria-labelledby="thread-title" className="rounded border border-slate-200 bg-white p-3 print:border-0">
      <PrintHeader title="Message transcript" number={number} party={party} span={span} holds={holds} zone={zone} />
      <header className="mb-2 print:hidden">
        <h2 id="thread-title" className="font-semibold">
          {formatPhone(party)}
        </h2>
        <p className="text-sm text-slate-700">
          {head ? `${formatCount(head.total)} ${head.total === 1 ? 'message' : 'messages'}${span ? `, ${span}` : ''}` : 'Loading…'} · Dates
          in {zoneLabel(zone)}
        </p>
      </header>
      {head?.optedOut ? (
        // From the support desk's opt-out ledger: before anyone answers this thread by text.
        <p role="status" className="mb-2 rounded border border-amber-600 bg-amber-50 p-2 text-sm text-amber-950">
          <strong>Opted out on this number</strong>
          {head.optedOut.since ? ` since ${formatDate(Date.parse(head.optedOut.since), zone)}` : ''}: do not text them. Answer by phone or
          email.
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
      {q.isPending || seeking ? <TableSkeleton label="Loading the thread" /> : null}
      {gaveUp ? (
        <p role="status" className="mb-2 text-sm text-slate-700">
          The message you opened is further back than the {formatCount(rows.length)} messages loaded: Load older messages to reach it.
        </p>
      ) : null}
      {head && head.total === 0 ? <EmptyState title="No messages with this party" /> : null}
      <div
        ref={box}
        className="relative max-h-[65vh] overflow-auto [overflow-anchor:none] print:max-h-none print:overflow-visible"
        tabIndex={0}
        role="region"
        aria-label={`Messages with ${formatPhone(party)}, oldest first`}
        onScroll={(e) => {
          if (e.currentTarget.scrollTop < 300) loadOlder()
        }}
      >
        {q.hasNextPage ? (
          <button type="button" className="btn mb-2 print:hidden" onClick={loadOlder} disabled={q.isFetchingNextPage}>
            {q.isFetchingNextPage ? 'Loading older…' : 'Load older messages'}
          </button>
        ) : rows.length > 0 ? (
          <p className="mb-2 text-xs text-slate-700">Start of the thread.</p>
        ) : null}
        <ol className="flex flex-col gap-2" aria-label={`Messages with ${formatPhone(party)}`}>
          {rows.map((m: IndexedRow, i) => {
            const prev = rows[i - 1]
            const day = m.dateMs !== null ? formatDay(m.dateMs, zone) : null
            const newDay = day !== null && (prev === undefined || prev.dateMs === null || formatDay(prev.dateMs, zone) !== day)
            return (
              <li
                key={m.key}
                className={`flex flex-col ${m.ordinal === at ? 'rounded bg-amber-50 ring-2 ring-amber-500 ring-offset-2' : ''}`}
                data-ordinal={m.ordinal}
                data-marked={m.ordinal === at ? 'true' : undefined}
                aria-current={m.ordinal === at ? 'true' : undefined}
              >
                {newDay ? <p className="my-2 self-center rounded bg-slate-100 px-2 text-xs text-slate-700">{day}</p> : null}
                {m.ordinal === at ? <p className="px-2 pt-1 text-xs font-semibold text-amber-900">{openedFor}</p> : null}
                <MessageBubble m={m} number={number} ordinal={m.ordinal} tid={tid || (m.tid ?? '')} />
              </li>
            )
          })}
        </ol>
      </div>
    </section>
  )
}

/**
 * The whole thread as a file, as the history and search export theirs: the index's export over
 * this number and this party, in the export tray, in the one message layout (contract/message-csv.ts).
 */
function ExportThread({ number, party, zone }: { number: string; party: string; zone: 'local' | 'utc' }) {
  return (
    <>
      {(['csv', 'xlsx'] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="btn"
          onClick={() => {
            startExport({
              path: INDEX_PATHS.export,
              params: { numbers: number, party, format, tz: zoneName(zone) },
              label: `Thread of ${formatPhone(number)} with ${formatPhone(party)}`,
              fileName: fitFileName({ subject: 'search', scope: number, filters: [`with ${party}`], rows: null, ext: format }),
              total: null,
            })
          }}
        >
          {`Export the whole thread as ${format === 'csv' ? 'CSV' : 'Excel (.xlsx)'}`}
        </button>
      ))}
    </>
  )
}
