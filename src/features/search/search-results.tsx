import type { IndexedRow, NumberIndexStatus } from '../../api/index-api'
import { ErrorAlert } from '../../components/alert'
import { VirtualTable } from '../../components/data-table/virtual-table'
// Rows that grow with their content are measured from the first render: the engine comes with this page's chunk.
import '../../components/data-table/measured-table'
import { TableSkeleton } from '../../components/empty-state'
import { formatCount } from '../../lib/count'
import { SEARCH_COLUMNS } from './columns'
import { matchCount } from './match-count'
import { NoMatches } from './no-matches'
import type { SearchResults } from './use-search-results'

const rowId = (m: IndexedRow) => m.key
const NO_SORT: [] = []

/** The matches: a failure kept beside what loaded, the empty result's advice, or the table and "show more". */
export function SearchResultsTable({
  found,
  q,
  scope,
  canExport,
  onSearchParty,
  onIndexing,
}: {
  found: SearchResults
  q: string
  scope: NumberIndexStatus[]
  canExport: boolean | null
  onSearchParty: (digits: string) => void
  onIndexing: () => void
}) {
  const { result, rows, total, capped } = found
  // Of how many: the exact count, or what the server could say of a count it stopped.
  const of = total === null ? formatCount(rows.length) : matchCount(total, capped)
  return (
    <>
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
        <NoMatches q={q} scope={scope} admin={canExport} onSearchParty={onSearchParty} onIndexing={onIndexing} />
      ) : rows.length > 0 ? (
        <>
          {result.hasNextPage ? (
            // Paper holds the rows loaded, and says so: "Show more" is not printed.
            <p className="hidden text-sm print:mb-2 print:block">
              {total === null
                ? `This paper holds the ${formatCount(rows.length)} matches loaded; more were found and are not printed.`
                : `This paper holds the ${formatCount(rows.length)} matches loaded of ${of}; the rest are not printed.`}
            </p>
          ) : null}
          <VirtualTable
            rows={rows}
            columns={SEARCH_COLUMNS}
            getRowId={rowId}
            sorting={NO_SORT}
            onSortingChange={() => undefined}
            label={`Search results, ${formatCount(rows.length)} of ${of} shown`}
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
              {result.isFetchingNextPage ? 'Loading more…' : `Show more results (${formatCount(rows.length)} of ${of} shown)`}
            </button>
          ) : null}
        </>
      ) : result.isPending ? (
        <TableSkeleton label="Searching" />
      ) : null}
    </>
  )
}
