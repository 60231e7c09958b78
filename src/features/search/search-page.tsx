import { useMemo } from 'react'
import { DROPPED_FIELDS, filterWords, searchParamsOf, type SearchParams } from '../../../contract/search-filters'
import { useIndexStatus } from '../../api/index-api'
import { DroppedParams } from '../../components/dropped-params'
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
  // Days in the zone the page shows: a local day's first and last instants, or the UTC days as typed.
  return searchParamsOf(s, (from, to) => dayRangeInZone(from, to, s.tz))
}

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
  const filters = filterWords(search)
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
        <DroppedParams schema={searchSearch} fields={DROPPED_FIELDS} />
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
