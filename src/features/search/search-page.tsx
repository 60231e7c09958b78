import { useMemo } from 'react'
import type { SearchParams } from '../../../contract/index-api'
import { useIndexStatus } from '../../api/index-api'
import { DAY_FIELDS, DroppedParams } from '../../components/dropped-params'
import { IndexOffAlert } from '../../components/index-off-alert'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { HistoryDisplayContext, type HistoryDisplay } from '../../components/message/display-context'
import { MediaViewer, useMediaViewer } from '../../components/message/media-viewer'
import { PrintHeader } from '../../components/print-header'
import { dayOrderProblem, dayRangeInZone } from '../../lib/dates'
import { searchSearch, type SearchSearch } from '../../lib/route-params'
import { useSetParams } from '../../lib/navigation'
import { SearchForm } from './search-form'
import { SearchResultsTable } from './search-results'
import { SaveView } from './save-view'
import { SearchSummary } from './search-summary'
import { useSearchResults } from './use-search-results'

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

/** The filters a Search link may carry, as the form names them. */
const SEARCH_FIELDS = {
  ...DAY_FIELDS,
  party: { label: 'Other party', must: 'not a phone number' },
  dir: { label: 'Direction', must: 'neither inbound nor outbound' },
  status: { label: 'Status', must: 'none of success, error or other' },
  media: { label: 'Media', must: 'neither yes nor no' },
  numbers: { label: 'Numbers', must: 'not a list of account numbers (6 to 15 digits each, separated by commas)' },
} as const

export function SearchPage({ search, canExport }: { search: SearchSearch; canExport: boolean | null }) {
  const setParams = useSetParams('/search')
  const index = useIndexStatus()
  const params = useMemo(() => toSearchParams(search), [search])
  const scope = useMemo(
    () => (index.status?.numbers ?? []).filter((n) => search.numbers.length === 0 || search.numbers.includes(n.number)),
    [index.status, search.numbers],
  )
  // A To before its From asks nothing: the form says what is wrong at the To box.
  const rangeProblem = dayOrderProblem(search.from, search.to)
  const found = useSearchResults(params, index.available && !rangeProblem)
  const zone = search.tz
  const { media, open: openMedia, close: closeMedia } = useMediaViewer()
  const display = useMemo<HistoryDisplay>(
    () => ({
      zone,
      openMedia,
      highlight: search.q,
    }),
    [zone, openMedia, search.q],
  )
  const filters = describeFilters(search)
  const span = search.from || search.to ? `${search.from || 'the start'} to ${search.to || 'today'}` : null

  return (
    <HistoryDisplayContext.Provider value={display}>
      <section aria-labelledby="search-heading">
        <PrintHeader
          title={`Search results${filters.length ? `: ${filters.join(', ')}` : ''}`}
          number={search.numbers.length === 1 ? search.numbers[0] : null}
          party={search.party || null}
          span={span}
          zone={zone}
        />
        <h1 id="search-heading" className="text-xl font-semibold">
          Search all messages
        </h1>
        <SearchForm search={search} numbers={index.status?.numbers ?? []} setParams={setParams} />
        <DroppedParams schema={searchSearch} fields={SEARCH_FIELDS} />
        <SaveView search={search} />

        {index.loading ? (
          <TableSkeleton label="Checking the message index" />
        ) : !index.available ? (
          <IndexOffAlert error={index.error} where="the message index" />
        ) : rangeProblem ? (
          <EmptyState title="No day is in that range">{rangeProblem}</EmptyState>
        ) : (
          <>
            <SearchSummary
              found={found}
              status={index.status}
              scope={scope}
              search={search}
              params={params}
              filters={filters}
              canExport={canExport}
            />
            <SearchResultsTable
              found={found}
              q={search.q}
              scope={scope}
              canExport={canExport}
              onSearchParty={(digits) => setParams({ q: null, party: digits }, { replace: true })}
              onIndexing={() => void index.refetch()}
            />
          </>
        )}
        <MediaViewer media={media} onClose={closeMedia} />
      </section>
    </HistoryDisplayContext.Provider>
  )
}
