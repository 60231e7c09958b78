import { useEffect, useMemo, useRef, useState } from 'react'
import type { Message } from '../../api/history'
import { useIndexStatus } from '../../api/index-api'
import { useMeta } from '../../api/meta'
import { ErrorAlert } from '../../components/alert'
import { parseSort, sortRows, sortToParam } from '../../components/data-table/features'
import { VirtualTable } from '../../components/data-table/virtual-table'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { ExportButtons } from '../../components/export-buttons'
import { HistoryDisplayContext, type HistoryDisplay } from '../../components/message/display-context'
import { MediaViewer } from '../../components/message/media-viewer'
import { PrintHeader } from '../../components/print-header'
import { Tabs } from '../../components/tabs'
import { formatCount } from '../../lib/count'
import { formatDate, zoneLabel } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { pageCount, pageSizesFor, rangeText } from '../../lib/range'
import type { HistorySearch } from '../../lib/route-params'
import { Link } from '@tanstack/react-router'
import { useSetParams } from '../../lib/navigation'
import { exportHeader, HISTORY_COLUMNS, HISTORY_SORTABLE, messageRow } from './columns'
import { ConversationView } from './conversation-view'
import { Envelope } from './envelope'
import { ExportAll } from './export-all'
import { wholeHistoryIndexed } from './index-facts'
import { filterMessages, filtersActive } from './filters'
import { FiltersBar, filtersOf } from './filters-bar'
import { GoToDate } from './go-to-date'
import { Pager } from './pager'
import { useHistoryPage } from './use-history-page'

const VIEWS = [
  { id: 'log', label: 'Log' },
  { id: 'conversation', label: 'Conversations' },
] as const

const messageRowId = (m: Message) => m.key
const ROW_ESTIMATE = 72

export function HistoryPage({ number, search, canExportAll }: { number: string; search: HistorySearch; canExportAll: boolean | null }) {
  const setParams = useSetParams('/numbers/$number')
  const meta = useMeta()
  const index = useIndexStatus()
  const facts = index.byNumber.get(number)
  // Look-ups (go to date) need the whole history indexed; the export can say it is partial.
  const indexedCount = index.available && facts && facts.indexed > 0 ? facts.indexed : null
  const indexed = indexedCount !== null && facts !== undefined && facts.upstreamTotal !== null && facts.indexed >= facts.upstreamTotal
  const { tid, view, tz: zone } = search
  const h = useHistoryPage(number, search, meta.historyPageCap)
  const { result, shown, page, size, start, end, total } = h
  const filters = filtersOf(search)

  const [media, setMedia] = useState<{ url: string; alt: string; opener: HTMLElement } | null>(null)
  const marked = search.mark
  const display = useMemo<HistoryDisplay>(
    () => ({
      zone,
      openMedia: (url, alt, opener) => setMedia({ url, alt, opener }),
      marked,
      threadLink: index.available ? (m) => (m.phone ? { number, search: { tid, party: m.phone, tz: zone } } : null) : undefined,
      messageLink: (m) => (shown ? { number, ordinal: shown.total - m.position + 1, search: { tid, tz: zone } } : null),
    }),
    [zone, marked, index.available, number, tid, shown],
  )

  const messages = shown?.messages
  const sorting = useMemo(() => parseSort(search.sort || null, HISTORY_SORTABLE), [search.sort])
  const visible = useMemo(
    () => (messages ? sortRows(filterMessages(messages, filters), sorting, HISTORY_COLUMNS) : []),
    [messages, filters.direction, filters.status, filters.media, filters.q, sorting], // eslint-disable-line react-hooks/exhaustive-deps
  )

  // Bring the marked record into view: the rows are windowed, so scroll near its estimated
  // offset first, then centre the rendered row once it exists.
  const tableBox = useRef<HTMLDivElement>(null)
  const markIndex = marked === null ? -1 : visible.findIndex((m) => m.position === marked)
  useEffect(() => {
    if (markIndex < 0) return
    const root = tableBox.current
    const box = root?.querySelector<HTMLElement>('[role="region"]')
    if (box) box.scrollTop = Math.max(0, markIndex * ROW_ESTIMATE - box.clientHeight / 2)
    // Measured rows change height as they render, which moves the marked row again: keep it
    // centred until it has held still for a few frames, and stop at once if the reader scrolls.
    let frames = 0
    let still = 0
    let raf = 0
    let stopped = false
    const stop = () => {
      stopped = true
    }
    const tick = () => {
      if (stopped || frames++ > 90) return
      const el = root?.querySelector<HTMLElement>('[data-marked="true"]')
      const r = el?.getBoundingClientRect()
      const b = box?.getBoundingClientRect()
      const inView = !!r && !!b && r.top >= Math.max(0, b.top) && r.bottom <= Math.min(window.innerHeight, b.bottom)
      if (el && !inView) {
        el.scrollIntoView({ block: 'center' })
        still = 0
      } else if (el && ++still > 5) return
      raf = requestAnimationFrame(tick)
    }
    raf = requestAnimationFrame(tick)
    const events = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const
    for (const e of events) window.addEventListener(e, stop, { passive: true, once: true })
    return () => {
      cancelAnimationFrame(raf)
      for (const e of events) window.removeEventListener(e, stop)
    }
  }, [markIndex])

  const formatted = formatPhone(shown?.number ?? number)
  const first = visible.reduce<number | null>((a, m) => (m.dateMs !== null && (a === null || m.dateMs < a) ? m.dateMs : a), null)
  const last = visible.reduce<number | null>((a, m) => (m.dateMs !== null && (a === null || m.dateMs > a) ? m.dateMs : a), null)
  const span = first !== null && last !== null ? `${formatDate(first, zone)} – ${formatDate(last, zone)}` : null
  const exportRange = shown && shown.messages.length > 0 ? `records-${shown.start}-${shown.start + shown.messages.length - 1}` : 'empty'

  if (!tid)
    return (
      <section>
        <h1 className="text-xl font-semibold">History of {formatPhone(number)}</h1>
        <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900">
          <p className="font-semibold">This link is missing the number&apos;s tid.</p>
          <p className="text-sm">
            Open the number from the <Link to="/">numbers list</Link> to get a complete link.
          </p>
        </div>
      </section>
    )

  return (
    <HistoryDisplayContext.Provider value={display}>
      <section aria-labelledby="history-heading">
        <PrintHeader title={`Message history of ${formatted}`} number={number} span={span} zone={zoneLabel(zone)} />
        <p className="text-sm print:hidden">
          <Link to="/" className="text-blue-800 underline">
            ← All numbers
          </Link>
        </p>
        <h1 id="history-heading" className="mt-1 text-xl font-semibold">
          History of {formatted}
        </h1>
        <Envelope page={shown} number={number} tid={tid} zone={zone} />

        {search.past !== null && total !== null ? (
          <div role="status" className="my-2 rounded border border-amber-600 bg-amber-50 p-2 text-sm text-amber-950">
            Page {formatCount(search.past)} does not exist: this history has {formatCount(pageCount(total, size))}{' '}
            {pageCount(total, size) === 1 ? 'page' : 'pages'} of {size}. Showing the last page.
          </div>
        ) : null}

        {h.drifted ? (
          <div
            role="status"
            className="my-2 flex flex-wrap items-center gap-2 rounded border border-amber-600 bg-amber-50 p-2 text-sm text-amber-950"
          >
            <span>
              New messages arrived since you started browsing (newest id now {h.drifted.mostRecentId}); record numbers have shifted, so
              pages may repeat or skip messages.
            </span>
            <button type="button" className="btn print:hidden" onClick={h.goNewest}>
              Go to newest
            </button>
          </div>
        ) : null}

        <div className="mt-3 flex flex-wrap items-center gap-2 print:hidden">
          <Tabs
            tabs={VIEWS}
            value={view}
            onChange={(v) => setParams({ view: v === 'log' ? null : v })}
            label="History view"
            panelId="history-panel"
          />
          <Link to="/search" search={{ numbers: [number] }} className="text-sm text-blue-800 underline">
            Search this number
          </Link>
          <Link to="/charts" search={{ number }} className="text-sm text-blue-800 underline">
            Charts
          </Link>
          <button type="button" className="btn ml-auto" onClick={h.refresh} disabled={result.isFetching}>
            {result.isFetching ? 'Refreshing…' : 'Refresh'}
          </button>
          <button
            type="button"
            className="btn"
            aria-pressed={zone === 'utc'}
            onClick={() => setParams({ tz: zone === 'utc' ? null : 'utc' }, { replace: true })}
          >
            Times in {zoneLabel(zone)} — switch to {zone === 'utc' ? 'local time' : 'UTC'}
          </button>
        </div>

        <div id="history-panel" role="tabpanel" aria-labelledby={`tab-${view}`} className="pt-2">
          <div className="flex flex-wrap items-end justify-between gap-2 print:hidden">
            <Pager
              page={page}
              size={size}
              sizes={pageSizesFor(meta.historyPageCap)}
              total={total}
              start={start}
              end={end}
              busy={result.isFetching}
              failed={result.isError && !result.isFetching}
              onPage={h.goPage}
              onSize={h.goSize}
            />
            <GoToDate
              number={number}
              tid={tid}
              total={total}
              zone={zone}
              indexed={indexed}
              checking={index.loading}
              onFound={(position) =>
                setParams({
                  page: Math.ceil(position / size) <= 1 ? null : Math.ceil(position / size),
                  mark: position,
                  past: null,
                  view: null,
                })
              }
            />
          </div>
          {result.isError ? (
            <ErrorAlert
              error={result.error}
              onRetry={() => void result.refetch()}
              retrying={result.isFetching}
              keptData={!!shown}
              where={`records ${formatCount(start)}–${formatCount(end)}`}
            />
          ) : null}
          {!shown || h.pastEnd ? (
            result.isError ? null : (
              <TableSkeleton label="Loading messages" />
            )
          ) : shown.total === 0 ? (
            <EmptyState title={`No messages for ${formatted}`}>This number has not sent or received any messages yet.</EmptyState>
          ) : view === 'conversation' ? (
            <ConversationView
              number={number}
              tid={tid}
              page={page}
              size={size}
              total={shown.total}
              more={search.more}
              party={search.party || null}
              indexAvailable={index.available}
              facts={facts}
              onMore={(n) => setParams({ more: n }, { replace: true })}
              onParty={(p) => setParams({ party: p }, { replace: true })}
            />
          ) : (
            <>
              <FiltersBar filters={filters} setParams={setParams} shown={visible.length} loaded={shown.messages.length} />
              <p className="mt-1 text-sm text-slate-700">Dates in {zoneLabel(zone)}.</p>
              <div className="my-2 flex justify-end print:hidden">
                <ExportButtons
                  nameParts={[
                    'history',
                    number,
                    filtersActive(filters) ? `filtered-${visible.length}-of` : '',
                    exportRange,
                    zone === 'utc' ? 'utc' : 'local',
                  ]}
                  getData={() => ({
                    header: exportHeader(zone),
                    rows: visible.map((m) => messageRow(m, zone, { number, tid, total: shown.total })),
                  })}
                  disabled={visible.length === 0}
                />
              </div>
              {visible.length === 0 ? (
                <EmptyState title="No loaded messages match the filters">
                  <button
                    type="button"
                    className="text-blue-800 underline"
                    onClick={() => setParams({ dir: null, status: null, media: null, mq: null })}
                  >
                    Clear filters
                  </button>
                </EmptyState>
              ) : (
                <div ref={tableBox} className="[&_tr:has([data-marked])]:bg-amber-50">
                  <VirtualTable
                    rows={visible}
                    columns={HISTORY_COLUMNS}
                    getRowId={messageRowId}
                    sorting={sorting}
                    onSortingChange={(next) => setParams({ sort: sortToParam(next) }, { replace: true })}
                    label={`Messages ${rangeText(shown.start, shown.start + shown.messages.length - 1, shown.total)}`}
                    estimateRowHeight={ROW_ESTIMATE}
                    dynamic
                    height="68vh"
                  />
                </div>
              )}
            </>
          )}
          {shown && shown.total > 0 && canExportAll ? (
            <div className="mt-4 print:hidden">
              <ExportAll
                number={number}
                tid={tid}
                total={shown.total}
                index={index.available ? { indexed: facts?.indexed ?? 0, complete: wholeHistoryIndexed(facts) } : null}
                zone={zone}
                chunk={meta.historyPageCap}
              />
            </div>
          ) : shown && shown.total > 0 && canExportAll === false ? (
            <p className="mt-4 text-sm text-slate-700 print:hidden">
              Exporting the whole history is for admins: ask one of your team&rsquo;s admins for the file.
            </p>
          ) : null}
        </div>
        <MediaViewer media={media} onClose={() => setMedia(null)} />
      </section>
    </HistoryDisplayContext.Provider>
  )
}
