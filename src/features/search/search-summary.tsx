import { whoCan } from '../../../contract/roles'
import { useQueryClient } from '@tanstack/react-query'
import { fitFileName } from '../../../contract/file-name'
import { INDEX_PATHS, type SearchParams } from '../../../contract/index-api'
import { startExport } from '../../api/export-jobs'
import { indexKeys, type IndexStatus, type NumberIndexStatus } from '../../api/index-api'
import { startSync } from '../../api/index-admin'
import { ExportButtons } from '../../components/export-buttons'
import { formatCount } from '../../lib/count'
import { exportHeader, messageRow } from '../../lib/message-export'
import { zoneLabel, zoneName } from '../../lib/dates'
import type { SearchSearch } from '../../lib/route-params'
import { SearchCoverage } from './coverage'
import { matchCount, matchesLine } from './match-count'
import { emptyResultOffersIndexing } from './no-matches'
import type { SearchResults } from './use-search-results'

/** Above the results: how many matched, how much of the account the index covers, and the export. */
export function SearchSummary({
  found,
  status,
  scope,
  search,
  params,
  filters,
  canExport,
}: {
  found: SearchResults
  status: IndexStatus | null | undefined
  scope: NumberIndexStatus[]
  search: SearchSearch
  params: SearchParams
  filters: string[]
  canExport: boolean | null
}) {
  const client = useQueryClient()
  const { result, first, total, capped } = found
  const zone = search.tz
  return (
    <div className="mt-3 flex flex-wrap items-center gap-3">
      <p role="status" className="text-base font-semibold tabular-nums" aria-live="polite">
        {total !== null ? matchesLine(total, capped) : result.isError && !result.isFetching ? 'The search failed (below).' : 'Searching…'}
        {result.isFetching && total !== null ? <span className="ml-2 text-sm font-normal text-slate-700">(updating…)</span> : null}
      </p>
      {first ? (
        <SearchCoverage
          freshness={first.freshness}
          progress={status?.progress ?? null}
          autoSync={status?.autoSync ?? null}
          accountListed={status?.accountListed ?? null}
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
        <ExportMatches search={search} params={params} filters={filters} total={total} capped={capped} />
      ) : canExport === false && total !== null && total > 0 ? (
        // Anyone exports the rows they look at; every match (the server's whole export) needs exportIndex.
        <div className="ml-auto flex flex-wrap items-center gap-2 print:hidden">
          <span className="text-sm text-slate-700">
            The {formatCount(found.rows.length)} {found.rows.length === 1 ? 'row' : 'rows'} shown:
          </span>
          <ExportButtons
            nameParts={['search', ...filters, `${found.rows.length}-rows-shown`, zone === 'utc' ? 'utc' : 'local']}
            getData={() => ({
              header: exportHeader(zone),
              // Each row's own number, and its ordinal as the index holds it (the position's history total is the row's).
              rows: found.rows.map((m) => messageRow(m, zone, { number: m.number, tid: m.tid ?? '', total: m.ordinal + m.position - 1 })),
            })}
            disabled={found.rows.length === 0}
          />
          <span className="text-sm text-slate-700">Exporting every match is for {whoCan('exportIndex')}.</span>
        </div>
      ) : null}
    </div>
  )
}

function ExportMatches({
  search,
  params,
  filters,
  total,
  capped,
}: {
  search: SearchSearch
  params: SearchParams
  filters: string[]
  total: number
  /** `total` is a lower bound: the file's size is not known until the export counts it. */
  capped: boolean
}) {
  // The server names the file (Content-Disposition) the same way; this is the name until it answers.
  const fileName = (ext: 'csv' | 'xlsx') =>
    fitFileName({
      subject: 'search',
      scope: search.numbers.length === 1 ? (search.numbers[0] ?? '') : search.numbers.length ? `${search.numbers.length} numbers` : 'all',
      filters: [
        ...filters.filter((f) => !f.startsWith('numbers ')),
        search.from || search.to ? `${search.from || 'start'} to ${search.to || 'now'}` : '',
      ],
      rows: capped ? null : total,
      ext,
    })
  const label = (as: string) =>
    capped
      ? `Export all matches as ${as} (more than ${formatCount(total)})`
      : total === 1
        ? `Export the 1 match as ${as}`
        : `Export all ${formatCount(total)} matches as ${as}`
  return (
    <div className="ml-auto flex flex-wrap gap-1 print:hidden">
      {(['csv', 'xlsx'] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="btn"
          onClick={() =>
            startExport({
              path: INDEX_PATHS.export,
              params: { ...params, format, tz: zoneName(search.tz) },
              label: `Search: ${filters.join(', ') || 'all messages'} (${matchCount(total, capped)} matches)`,
              fileName: fileName(format),
              total: capped ? null : total,
            })
          }
        >
          {label(format === 'csv' ? 'CSV' : 'Excel (.xlsx)')}
        </button>
      ))}
    </div>
  )
}
