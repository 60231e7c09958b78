import { keepPreviousData, useInfiniteQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useMemo, useState } from 'react'
import { fitFileName } from '../../../contract/file-name'
import { INDEX_PATHS, type SearchParams } from '../../../contract/index-api'
import { startExport } from '../../api/export-jobs'
import { indexKeys, searchQuery, useIndexStatus, type IndexedRow } from '../../api/index-api'
import { startSync } from '../../api/index-admin'
import { ErrorAlert } from '../../components/alert'
import { DayField } from '../../components/day-field'
import { IndexOffAlert } from '../../components/index-off-alert'
import { VirtualTable } from '../../components/data-table/virtual-table'
import { TableSkeleton } from '../../components/empty-state'
import { HistoryDisplayContext, type HistoryDisplay } from '../../components/message/display-context'
import { MediaViewer } from '../../components/message/media-viewer'
import { PrintHeader } from '../../components/print-header'
import { formatCount } from '../../lib/count'
import { dayRangeInZone, zoneLabel, zoneName } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import type { SearchSearch } from '../../lib/route-params'
import { useSetParams } from '../../lib/navigation'
import { SEARCH_COLUMNS } from './columns'
import { SearchCoverage } from './coverage'
import { emptyResultOffersIndexing, NoMatches } from './no-matches'
import { SaveView } from './save-view'
import { useDebouncedParam } from './use-debounced-param'

const rowId = (m: IndexedRow) => m.key
const NO_SORT: [] = []

/** The route's parsed query → the index's search parameters (absent = no filter). */
export function toSearchParams(s: SearchSearch): SearchParams {
  return {
    ...(s.q.trim() ? { q: s.q.trim() } : {}),
    ...(s.party ? { party: s.party } : {}),
    ...(s.dir ? { direction: s.dir } : {}),
    ...(s.status ? { status: s.status } : {}),
    ...(s.media ? { media: s.media } : {}),
    // Days in the zone the page shows: a local day's first and last instants, or the UTC days as typed.
    ...dayRangeInZone(s.from, s.to, s.tz),
    ...(s.numbers.length ? { numbers: s.numbers.join(',') } : {}),
  }
}

function describeFilters(s: SearchSearch): string[] {
  const parts: string[] = []
  if (s.q.trim()) parts.push(`text "${s.q.trim()}"`)
  if (s.party) parts.push(`party ${s.party}`)
  if (s.dir) parts.push(s.dir)
  if (s.status) parts.push(`status ${s.status}`)
  if (s.media) parts.push(s.media === 'yes' ? 'with media' : 'without media')
  if (s.numbers.length) parts.push(`numbers ${s.numbers.join(', ')}`)
  return parts
}

export function SearchPage({ search, canExport }: { search: SearchSearch; canExport: boolean | null }) {
  const setParams = useSetParams('/search')
  const client = useQueryClient()
  const index = useIndexStatus()
  const params = useMemo(() => toSearchParams(search), [search])
  const scope = useMemo(
    () => (index.status?.numbers ?? []).filter((n) => search.numbers.length === 0 || search.numbers.includes(n.number)),
    [index.status, search.numbers],
  )
  const result = useInfiniteQuery({ ...searchQuery(params), enabled: index.available, placeholderData: keepPreviousData })
  const rows = useMemo(() => result.data?.pages.flatMap((p) => p.rows) ?? [], [result.data])
  const first = result.data?.pages[0]
  const total = first?.total ?? null
  const zone = search.tz
  const [media, setMedia] = useState<{ url: string; alt: string; opener: HTMLElement } | null>(null)
  const display = useMemo<HistoryDisplay>(
    () => ({ zone, openMedia: (url, alt, opener) => setMedia({ url, alt, opener }), highlight: search.q }),
    [zone, search.q],
  )

  const commitQ = useCallback((v: string) => setParams({ q: v }, { replace: true }), [setParams])
  const commitParty = useCallback((v: string) => setParams({ party: v.replace(/\D/g, '') }, { replace: true }), [setParams])
  const [q, setQ] = useDebouncedParam(search.q, commitQ)
  const [party, setParty] = useDebouncedParam(search.party, commitParty)
  const filters = describeFilters(search)
  const span = search.from || search.to ? `${search.from || 'the start'} to ${search.to || 'today'}` : null
  // The server names the file (Content-Disposition) the same way; this is the name until it answers.
  const fileName = fitFileName({
    subject: 'search',
    scope: search.numbers.length === 1 ? (search.numbers[0] ?? '') : search.numbers.length ? `${search.numbers.length} numbers` : 'all',
    filters: [
      ...filters.filter((f) => !f.startsWith('numbers ')),
      search.from || search.to ? `${search.from || 'start'} to ${search.to || 'now'}` : '',
    ],
    rows: total,
    ext: 'csv',
  })

  return (
    <HistoryDisplayContext.Provider value={display}>
      <section aria-labelledby="search-heading">
        <PrintHeader
          title={`Search results${filters.length ? `: ${filters.join(', ')}` : ''}`}
          number={search.numbers.length === 1 ? search.numbers[0] : null}
          party={search.party || null}
          span={span}
          zone={zoneLabel(zone)}
        />
        <h1 id="search-heading" className="text-xl font-semibold">
          Search all messages
        </h1>
        <form
          role="search"
          aria-label="Message search"
          className="mt-2 flex flex-col gap-2 rounded border border-slate-200 bg-white p-3 print:hidden"
          onSubmit={(e) => e.preventDefault()}
        >
          <label className="flex flex-col text-sm">
            Search all messages (text in the message)
            <input
              type="search"
              className="input w-full max-w-xl"
              value={q}
              onChange={(e) => setQ(e.target.value)}
              placeholder="Words in the message"
              autoFocus
            />
          </label>
          <div className="flex flex-wrap items-end gap-3 text-sm">
            <label className="flex flex-col">
              Other party
              <input
                type="search"
                className="input w-44"
                inputMode="tel"
                value={party}
                onChange={(e) => setParty(e.target.value)}
                placeholder="Any formatting"
              />
            </label>
            <Choice
              label="Direction"
              value={search.dir}
              options={{ inbound: 'Inbound', outbound: 'Outbound' }}
              onChange={(v) => setParams({ dir: v }, { replace: true })}
            />
            <Choice
              label="Status"
              value={search.status}
              options={{ success: 'Success', error: 'Error', other: 'Other' }}
              onChange={(v) => setParams({ status: v }, { replace: true })}
            />
            <Choice
              label="Media"
              value={search.media}
              options={{ yes: 'Has media', no: 'No media' }}
              onChange={(v) => setParams({ media: v }, { replace: true })}
            />
            <DayField label="From (day)" value={search.from} onCommit={(v) => setParams({ from: v }, { replace: true })} />
            <DayField label="To (day, included)" value={search.to} onCommit={(v) => setParams({ to: v }, { replace: true })} />
            <label className="flex flex-col">
              Numbers
              <select
                multiple
                className="input h-20 min-w-44"
                value={search.numbers}
                onChange={(e) =>
                  setParams(
                    {
                      numbers: Array.from(e.target.selectedOptions).map((o) => o.value),
                    },
                    { replace: true },
                  )
                }
              >
                {(index.status?.numbers ?? []).map((n) => (
                  <option key={n.number} value={n.number}>
                    {formatPhone(n.number)}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              className="btn"
              onClick={() =>
                setParams(
                  { q: null, party: null, dir: null, status: null, media: null, from: null, to: null, numbers: null },
                  { replace: true },
                )
              }
            >
              Clear all
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
          <p className="text-xs text-slate-700">No numbers picked means all numbers. From and To are whole days in {zoneLabel(zone)}.</p>
        </form>
        <SaveView search={search} />

        {index.loading ? (
          <TableSkeleton label="Checking the message index" />
        ) : !index.available ? (
          <IndexOffAlert error={index.error} where="the message index" />
        ) : (
          <>
            <div className="mt-3 flex flex-wrap items-center gap-3">
              <p role="status" className="text-base font-semibold tabular-nums" aria-live="polite">
                {total === null ? 'Searching…' : `${formatCount(total)} ${total === 1 ? 'match' : 'matches'}`}
                {result.isFetching && total !== null ? <span className="ml-2 text-sm font-normal text-slate-700">(updating…)</span> : null}
              </p>
              {first ? (
                <SearchCoverage
                  freshness={first.freshness}
                  progress={index.status?.progress ?? null}
                  autoSync={index.status?.autoSync ?? null}
                  accountListed={index.status?.accountListed ?? null}
                  zone={zone}
                  // With nothing indexed and no match, the empty result below makes the same offer to admins.
                  canOffer={!(total === 0 && emptyResultOffersIndexing(scope, canExport))}
                  onStart={async () => {
                    await startSync({ all: true })
                    await client.invalidateQueries({ queryKey: indexKeys.all })
                  }}
                />
              ) : null}
              <p className="text-sm text-slate-700">Newest first. Dates in {zoneLabel(zone)}.</p>
              {canExport && total !== null && total > 0 ? (
                <button
                  type="button"
                  className="btn ml-auto print:hidden"
                  onClick={() =>
                    startExport({
                      path: INDEX_PATHS.export,
                      params: { ...params, format: 'csv', tz: zoneName(zone) },
                      label: `Search: ${filters.join(', ') || 'all messages'} (${formatCount(total)} matches)`,
                      fileName,
                      total,
                    })
                  }
                >
                  Export all {formatCount(total)} matches as CSV
                </button>
              ) : canExport === false && total !== null && total > 0 ? (
                <p className="ml-auto text-sm text-slate-700 print:hidden">Exporting search results is for admins.</p>
              ) : null}
            </div>
            {result.isError ? (
              <ErrorAlert
                error={result.error}
                onRetry={() => void result.refetch()}
                retrying={result.isFetching}
                keptData={rows.length > 0}
                where="search results"
              />
            ) : null}
            {total === 0 ? (
              <NoMatches
                q={search.q}
                scope={scope}
                admin={canExport}
                onSearchParty={(digits) => setParams({ q: null, party: digits }, { replace: true })}
                onIndexing={() => void index.refetch()}
              />
            ) : rows.length > 0 ? (
              <>
                <VirtualTable
                  rows={rows}
                  columns={SEARCH_COLUMNS}
                  getRowId={rowId}
                  sorting={NO_SORT}
                  onSortingChange={() => undefined}
                  label={`Search results, ${formatCount(rows.length)} of ${formatCount(total ?? rows.length)} shown`}
                  estimateRowHeight={72}
                  dynamic
                  height="64vh"
                />
                {result.hasNextPage ? (
                  <button
                    type="button"
                    className="btn mt-2 print:hidden"
                    onClick={() => void result.fetchNextPage()}
                    disabled={result.isFetchingNextPage}
                  >
                    {result.isFetchingNextPage
                      ? 'Loading more…'
                      : `Show more results (${formatCount(rows.length)} of ${formatCount(total ?? 0)} shown)`}
                  </button>
                ) : null}
              </>
            ) : result.isPending ? (
              <TableSkeleton label="Searching" />
            ) : null}
          </>
        )}
        <MediaViewer media={media} onClose={() => setMedia(null)} />
      </section>
    </HistoryDisplayContext.Provider>
  )
}

function Choice<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string
  value: T | null
  options: Record<T, string>
  onChange: (v: T | null) => void
}) {
  return (
    <label className="flex flex-col">
      {label}
      <select className="input" value={value ?? 'all'} onChange={(e) => onChange(e.target.value === 'all' ? null : (e.target.value as T))}>
        <option value="all">All</option>
        {(Object.keys(options) as T[]).map((k) => (
          <option key={k} value={k}>
            {options[k]}
          </option>
        ))}
      </select>
    </label>
  )
}
