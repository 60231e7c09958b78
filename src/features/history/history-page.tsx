import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useMemo, useRef, useState } from 'react'
import { historyQuery, type HistoryPage as Page, type Message } from '../../api/history'
import { Link, useLocation, useSetParams } from '../../lib/router'
import { ErrorAlert } from '../../components/alert'
import { parseSort, sortRows, sortToParam } from '../../components/data-table/features'
import { VirtualTable } from '../../components/data-table/virtual-table'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { ExportButtons } from '../../components/export-buttons'
import { Tabs } from '../../components/tabs'
import { exactUtc, formatDate, parseApiDate, type Zone } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { PAGE_SIZES, clampPage, pageCount, pageRange, rangeText } from '../../lib/range'
import { EXPORT_HEADER, HISTORY_COLUMNS, HISTORY_WIDTHS, messageRow, SORT_VALUES } from './columns'
import { ConversationView } from './conversation-view'
import { HistoryDisplayContext, type HistoryDisplay } from '../../components/message/display-context'
import { ExportAll } from './export-all'
import { filterMessages, filtersActive, readFilters } from './filters'
import { MediaViewer } from '../../components/message/media-viewer'
import { Pager } from './pager'
import { formatCount } from '../../lib/count'

const VIEWS = [
  { id: 'log', label: 'Log' },
  { id: 'conversation', label: 'Conversations' },
] as const

type View = (typeof VIEWS)[number]['id']

const SORTABLE = ['position', 'date', 'direction', 'phone', 'status']
const messageRowId = (m: Message) => m.key

function readSize(v: string | null): number {
  const n = Number(v)
  return (PAGE_SIZES as readonly number[]).includes(n) ? n : 50
}

export function HistoryPage({ number }: { number: string }) {
  const { params } = useLocation()
  const setParams = useSetParams()
  const queryClient = useQueryClient()
  const tid = params.get('tid') ?? ''
  const size = readSize(params.get('size'))
  const view: View = params.get('view') === 'conversation' ? 'conversation' : 'log'
  const zone: Zone = params.get('tz') === 'utc' ? 'utc' : 'local'
  const filters = readFilters(params)
  const more = Math.max(0, Math.min(50, Number(params.get('more')) || 0))

  // The total known when the user asked for this page clamps the range's end; on a fresh load
  // it is unknown and the full page is asked for (the API answers what exists).
  const [rangeTotal, setRangeTotal] = useState<number | null>(null)
  const page = clampPage(Number(params.get('page') ?? 1), rangeTotal, size)
  const { start, end } = pageRange(page, size, rangeTotal)

  const result = useQuery({
    ...historyQuery(number, tid, start, end),
    enabled: tid !== '',
    // Keep the previous page on screen while the next loads, but never another number's rows.
    placeholderData: (prev, prevQuery) => (prevQuery && prevQuery.queryKey[1] === tid && prevQuery.queryKey[2] === number ? prev : undefined),
  })

  // The last page that loaded for this number stays on screen through a failed page change.
  const lastGood = useRef<{ key: string; page: Page } | null>(null)
  const identity = `${tid}|${number}`
  if (result.data && !result.isPlaceholderData) lastGood.current = { key: identity, page: result.data }
  const shown: Page | undefined = result.data ?? (lastGood.current?.key === identity ? lastGood.current.page : undefined)
  const total = shown?.total ?? null

  // Drift: record numbers are positions, so new messages shift every page (spec §4.1).
  const [anchor, setAnchor] = useState<{ key: string; id: string | null } | null>(null)
  useEffect(() => {
    if (result.data && !result.isPlaceholderData && anchor?.key !== identity) setAnchor({ key: identity, id: result.data.mostRecentId })
  }, [result.data, result.isPlaceholderData, anchor, identity])
  const drifted = anchor?.key === identity && result.data && !result.isPlaceholderData && result.data.mostRecentId !== anchor.id ? result.data : null

  // Prefetch the next page so "Next page" swaps rows at once.
  useEffect(() => {
    if (!result.data || result.isPlaceholderData || tid === '') return
    const t = result.data.total
    if (page < pageCount(t, size)) {
      const next = pageRange(page + 1, size, t)
      void queryClient.prefetchQuery(historyQuery(number, tid, next.start, next.end))
    }
  }, [result.data, result.isPlaceholderData, page, size, number, tid, queryClient])

  const goPage = (p: number) => {
    setRangeTotal(total)
    setParams({ page: p <= 1 ? null : p, more: null })
  }
  const goSize = (s: number) => {
    // Keep the first record in view: the new page is the one that contains it.
    setRangeTotal(total)
    const first = start
    const p = Math.floor((first - 1) / s) + 1
    setParams({ size: s === 50 ? null : s, page: p <= 1 ? null : p, more: null })
  }
  const goNewest = () => {
    void queryClient.removeQueries({ queryKey: ['history', tid, number] })
    setAnchor(null)
    setRangeTotal(null)
    setParams({ page: null, more: null })
  }

  const [media, setMedia] = useState<{ url: string; alt: string; opener: HTMLElement } | null>(null)
  const display = useMemo<HistoryDisplay>(() => ({ zone, openMedia: (url, alt, opener) => setMedia({ url, alt, opener }) }), [zone])

  const messages = shown?.messages
  const sortParam = params.get('sort')
  const sorting = useMemo(() => parseSort(sortParam, SORTABLE), [sortParam])
  const visible = useMemo(
    () => (messages ? sortRows(filterMessages(messages, filters), sorting, SORT_VALUES) : []),
    [messages, filters.direction, filters.status, filters.media, filters.q, sorting], // eslint-disable-line react-hooks/exhaustive-deps
  )

  const formatted = formatPhone(shown?.number ?? number)
  const label = `${number}`

  if (!tid)
    return (
      <section>
        <h1 className="text-xl font-semibold">History of {formatPhone(number)}</h1>
        <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900">
          <p className="font-semibold">This link is missing the number&apos;s tid.</p>
          <p className="text-sm">
            Open the number from the <Link href="/">numbers list</Link> to get a complete link.
          </p>
        </div>
      </section>
    )

  return (
    <HistoryDisplayContext.Provider value={display}>
      <section aria-labelledby="history-heading">
        <p className="text-sm">
          <Link href="/" className="text-blue-800 underline">
            ← All numbers
          </Link>
        </p>
        <h1 id="history-heading" className="mt-1 text-xl font-semibold">
          History of {formatted}
        </h1>
        <Envelope page={shown} number={number} tid={tid} zone={zone} />

        {drifted ? (
          <div role="status" className="my-2 flex flex-wrap items-center gap-2 rounded border border-amber-600 bg-amber-50 p-2 text-sm text-amber-950">
            <span>
              New messages arrived since you started browsing (newest id now {drifted.mostRecentId}); record numbers have shifted, so pages may repeat or skip messages.
            </span>
            <button type="button" className="btn" onClick={goNewest}>
              Go to newest
            </button>
          </div>
        ) : null}

        <div className="mt-3 flex flex-wrap items-center gap-2">
          <Tabs tabs={VIEWS} value={view} onChange={(v) => setParams({ view: v === 'log' ? null : v })} label="History view" panelId="history-panel" />
          <button type="button" className="btn ml-auto" aria-pressed={zone === 'utc'} onClick={() => setParams({ tz: zone === 'utc' ? null : 'utc' }, { replace: true })}>
            {zone === 'utc' ? 'Times in UTC' : 'Times in local time'} — switch to {zone === 'utc' ? 'local' : 'UTC'}
          </button>
        </div>

        <div id="history-panel" role="tabpanel" aria-labelledby={`tab-${view}`} className="pt-2">
          <Pager page={page} size={size} total={total} start={start} end={end} busy={result.isFetching} onPage={goPage} onSize={goSize} />
          {result.isError ? <ErrorAlert error={result.error} onRetry={() => void result.refetch()} retrying={result.isFetching} keptData={!!shown} /> : null}
          {!shown ? (
            result.isError ? null : <TableSkeleton label="Loading messages" />
          ) : shown.total === 0 ? (
            <EmptyState title={`No messages for ${formatted}`}>This number has not sent or received any messages yet.</EmptyState>
          ) : view === 'conversation' ? (
            <ConversationView
              number={number}
              tid={tid}
              page={page}
              size={size}
              total={shown.total}
              more={more}
              party={params.get('party')}
              onMore={(n) => setParams({ more: n }, { replace: true })}
              onParty={(p) => setParams({ party: p }, { replace: true })}
            />
          ) : (
            <>
              <Filters filters={filters} setParams={setParams} shown={visible.length} loaded={shown.messages.length} />
              <div className="my-2 flex justify-end">
                <ExportButtons
                  nameParts={['history', label, `${shown.start}-${shown.start + shown.messages.length - 1}`]}
                  getData={() => ({ header: EXPORT_HEADER, rows: visible.map(messageRow) })}
                  disabled={visible.length === 0}
                />
              </div>
              {visible.length === 0 ? (
                <EmptyState title="No loaded messages match the filters">
                  <button type="button" className="text-blue-800 underline" onClick={() => setParams({ dir: null, status: null, media: null, mq: null })}>
                    Clear filters
                  </button>
                </EmptyState>
              ) : (
                <VirtualTable
                  rows={visible}
                  columns={HISTORY_COLUMNS}
                  getRowId={messageRowId}
                  sorting={sorting}
                  onSortingChange={(next) => setParams({ sort: sortToParam(next) }, { replace: true })}
                  label={`Messages ${rangeText(shown.start, shown.start + shown.messages.length - 1, shown.total)}`}
                  estimateRowHeight={72}
                  columnWidths={HISTORY_WIDTHS}
                  dynamic
                  height="68vh"
                />
              )}
            </>
          )}
          {shown && shown.total > 0 ? (
            <div className="mt-4">
              <ExportAll number={number} tid={tid} total={shown.total} label={label} />
            </div>
          ) : null}
        </div>
        <MediaViewer media={media} onClose={() => setMedia(null)} />
      </section>
    </HistoryDisplayContext.Provider>
  )
}


function Envelope({ page, number, tid, zone }: { page: Page | undefined; number: string; tid: string; zone: Zone }) {
  const created = parseApiDate(page?.createdDate)
  const recent = parseApiDate(page?.mostRecentDate)
  const dash = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? '—' : v)
  return (
    <dl className="mt-2 grid grid-cols-2 gap-x-6 gap-y-1 rounded border border-slate-200 bg-white p-3 text-sm sm:grid-cols-3 lg:grid-cols-6">
      <div>
        <dt className="text-slate-700">Number</dt>
        <dd className="font-medium">
          {formatPhone(page?.number ?? number)} <span className="font-mono text-xs text-slate-700 select-all">{page?.number ?? number}</span>
        </dd>
      </div>
      <div>
        <dt className="text-slate-700">tid</dt>
        <dd className="font-mono text-xs break-all select-all">{page?.tid ?? tid}</dd>
      </div>
      <div>
        <dt className="text-slate-700">Opt-in</dt>
        <dd>{dash(page?.optin)}</dd>
      </div>
      <div>
        <dt className="text-slate-700">Total messages</dt>
        <dd className="tabular-nums">{page ? formatCount(page.total) : '…'}</dd>
      </div>
      <div>
        <dt className="text-slate-700">Created</dt>
        {/* The zone of created_date is not documented (spec §2.3): shown as sent, no conversion. */}
        <dd title={created === null ? undefined : 'Time zone not stated by the API'}>{dash(page?.createdDate)}</dd>
      </div>
      <div>
        <dt className="text-slate-700">Most recent</dt>
        <dd>
          <span title={recent === null ? undefined : exactUtc(recent)}>{recent === null ? dash(page?.mostRecentDate) : formatDate(recent, zone)}</span>
          <span className="block font-mono text-xs text-slate-700">id {dash(page?.mostRecentId)}</span>
        </dd>
      </div>
    </dl>
  )
}

function Filters({ filters, setParams, shown, loaded }: { filters: ReturnType<typeof readFilters>; setParams: ReturnType<typeof useSetParams>; shown: number; loaded: number }) {
  return (
    <fieldset className="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-2">
      <legend className="px-1 text-sm font-semibold">Filter the loaded page</legend>
      <FilterSelect label="Direction" value={filters.direction} options={['outbound', 'inbound']} names={{ outbound: 'Outbound', inbound: 'Inbound' }} onChange={(v) => setParams({ dir: v }, { replace: true })} />
      <FilterSelect label="Status" value={filters.status} options={['Success', 'Error', 'Unknown']} onChange={(v) => setParams({ status: v }, { replace: true })} />
      <label className="flex items-center gap-1 text-sm">
        <input type="checkbox" checked={filters.media} onChange={(e) => setParams({ media: e.target.checked ? '1' : null }, { replace: true })} />
        Has media
      </label>
      <label className="flex flex-col text-sm">
        Search messages
        <input type="search" className="input w-60" value={filters.q} placeholder="Text or phone" onChange={(e) => setParams({ mq: e.target.value || null }, { replace: true })} />
      </label>
      <p role="status" className="text-sm text-slate-700">
        {filtersActive(filters) ? `${shown} of ${loaded} loaded messages match. Filters apply to this page only.` : `Filters apply to the ${loaded} messages on this page only.`}
      </p>
    </fieldset>
  )
}

/** A labelled select whose first option, All, clears the filter (null in the URL). */
function FilterSelect({ label, value, options, names = {}, onChange }: { label: string; value: string; options: string[]; names?: Record<string, string>; onChange: (v: string | null) => void }) {
  return (
    <label className="flex flex-col text-sm">
      {label}
      <select className="input" value={value} onChange={(e) => onChange(e.target.value === 'all' ? null : e.target.value)}>
        <option value="all">All</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {names[o] ?? o}
          </option>
        ))}
      </select>
    </label>
  )
}
