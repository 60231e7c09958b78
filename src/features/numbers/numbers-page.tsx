import { useMemo } from 'react'
import type { NumberTab } from '../../api/numbers'
import { useSetParams } from '../../lib/navigation'
import type { NumbersSearch } from '../../lib/route-params'
import { ErrorAlert } from '../../components/alert'
import { ColumnToggles } from '../../components/data-table/column-toggles'
import { VirtualTable } from '../../components/data-table/virtual-table'
import { columnLabel, exportTable, parseSort, sortToParam } from '../../components/data-table/features'
import { ExportButtons } from '../../components/export-buttons'
import { Tabs } from '../../components/tabs'
import { auditFilterLabel, auditSelectionParams, parseAuditSelection, type AuditFilter } from './audit'
import { PrintHeader } from '../../components/print-header'
import { AuditSummary } from './audit-summary'
import { COLUMN_IDS_ALL, COLUMN_IDS_TYPED, COLUMNS_ALL, COLUMNS_TYPED } from './columns'
import { numberRowId, type NumberRow } from './number-rows'
import { FirstRunGuide } from './first-run-guide'
import { NumbersEmpty } from './numbers-empty'
import { NumbersToolbar } from './numbers-toolbar'
import { useHiddenColumns } from './use-hidden-columns'
import { useNumbersRows } from './use-numbers-rows'
import { formatCount } from '../../lib/count'

const TABS = [
  { id: 'all', label: 'All' },
  { id: 'local', label: 'Local' },
  { id: 'tollfree', label: 'Toll-free' },
] as const satisfies ReadonlyArray<{ id: NumberTab; label: string }>

const TAB_NAME: Record<NumberTab, string> = { all: 'all', local: 'local', tollfree: 'toll-free' }
const PRINTED_TAB: Record<NumberTab, string> = { all: 'All numbers', local: 'Local numbers', tollfree: 'Toll-free numbers' }

function readTab(v: string): NumberTab {
  return v === 'local' || v === 'tollfree' ? v : 'all'
}

const rowId = (r: NumberRow) => numberRowId(r.owned)

export function NumbersPage({ search }: { search: NumbersSearch }) {
  const setParams = useSetParams('/')
  const tab = readTab(search.tab)
  const query = search.q
  const auditParam = search.audit || null
  const severityParam = search.severity || null
  // Memoised on the URL strings, like the table state below: a new array each render would re-filter every row.
  const auditSel = useMemo(() => parseAuditSelection(severityParam, auditParam), [severityParam, auditParam])
  const audit = auditSel.length > 0 ? auditSel : null
  const setAudit = (next: readonly AuditFilter[]) => setParams(auditSelectionParams(next))
  const columns = tab === 'all' ? COLUMNS_ALL : COLUMNS_TYPED
  const columnIds: readonly string[] = tab === 'all' ? COLUMN_IDS_ALL : COLUMN_IDS_TYPED
  // Table state is memoised on the URL strings, not on the (new every render) params object:
  // a fresh sorting array each render would re-sort 10,000 rows and re-render every cell.
  const sortParam = search.sort || null
  const sorting = useMemo(() => parseSort(sortParam, columnIds), [sortParam, columnIds])
  const { hidden, columnVisibility, setHidden } = useHiddenColumns(search.hide, setParams)

  const { result, data, audited, auditResult, rows } = useNumbersRows({ tab, query, auditSel, sorting, columns })
  const visibleIds = columnIds.filter((id) => !hidden.has(id))

  const changeTab = (next: NumberTab) => {
    // Keep search and sort where they still make sense: the country column exists only on All.
    const sort = search.sort
    return setParams({ tab: next === 'all' ? null : next, sort: next !== 'all' && sort.startsWith('country.') ? null : sort })
  }

  // Exactly what is on screen: the filtered, sorted rows and the shown columns, in order.
  const getExport = () => exportTable(columns, visibleIds, rows)

  const shown = rows.length
  const countText = !data
    ? ''
    : !audited && audit
      ? 'Applying the audit filter…'
      : `${formatCount(shown)} number${shown === 1 ? '' : 's'}${shown !== data.length ? ` of ${formatCount(data.length)}` : ''}`

  // On paper, what the rows are: which tab, search and audit filter, how many (the controls that say so do not print).
  const printed = data
    ? [
        `${PRINTED_TAB[tab]}: ${countText}`,
        query ? `search “${query}”` : null,
        auditSel.length > 0 ? `callback audit: ${auditSel.map(auditFilterLabel).join(', ')}` : null,
      ]
        .filter(Boolean)
        .join('; ')
    : null
  return (
    <section aria-labelledby="numbers-heading">
      <PrintHeader title="Owned numbers" holds={printed} zone="local" />
      <h1 id="numbers-heading" className="mb-3 text-xl font-semibold print:hidden">
        Owned numbers
      </h1>
      <FirstRunGuide />
      <Tabs tabs={TABS} value={tab} onChange={changeTab} label="Number type" panelId="numbers-panel" />
      <div id="numbers-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} className="pt-3">
        <NumbersToolbar
          query={query}
          numbers={data}
          audit={audit}
          onShowAll={() => void setAudit([])}
          setParams={setParams}
          actions={
            <>
              <button type="button" className="btn" onClick={() => void result.refetch()} disabled={result.isFetching}>
                {result.isFetching && data ? 'Refreshing…' : 'Refresh'}
              </button>
              <ColumnToggles
                columns={columns.flatMap((c) => (c.id && c.enableHiding !== false ? [{ id: c.id, label: columnLabel(c) }] : []))}
                hidden={hidden}
                onChange={setHidden}
              />
              <ExportButtons
                getData={getExport}
                nameParts={['numbers', TAB_NAME[tab], ...auditSel, ...(query ? ['search'] : [])]}
                disabled={!data || shown === 0}
              />
            </>
          }
        />
        <p role="status" aria-live="polite" className="mt-2 text-sm text-slate-700">
          {result.isPending
            ? result.failureCount > 0
              ? // Retrying a refusal that may pass (a 503, the provider unreachable): said, not a silent wait.
                `The messaging provider did not answer (${result.failureCount === 1 ? 'once' : `${result.failureCount} times`}); asking again…`
              : 'Loading numbers…'
            : countText}
        </p>

        {result.isError ? (
          <ErrorAlert error={result.error} onRetry={() => void result.refetch()} retrying={result.isFetching} keptData={!!data} />
        ) : null}

        {/* There from the first paint, loading included, at its final height: the rows below never move when the data or the audit lands. */}
        {result.isPending || (data && data.length > 0) ? (
          <AuditSummary audit={auditResult} total={data ? data.length : null} active={auditSel} onChange={setAudit} />
        ) : null}
        {/* The table is mounted while loading (headers and a skeleton body), so the data's arrival only adds rows. */}
        {result.isPending || (data && shown > 0) ? (
          <VirtualTable
            rows={rows}
            columns={columns}
            getRowId={rowId}
            sorting={sorting}
            onSortingChange={(next) => setParams({ sort: sortToParam(next) }, { replace: true })}
            columnVisibility={columnVisibility}
            label={`Owned numbers, ${TAB_NAME[tab]}`}
            estimateRowHeight={58}
            estimateCardHeight={250}
            loading={result.isPending ? 'Loading numbers' : undefined}
          />
        ) : !data ? null : (
          <NumbersEmpty
            owned={data.length}
            tab={tab}
            tabName={TAB_NAME[tab]}
            query={query}
            audit={audit}
            audited={audited}
            setParams={setParams}
          />
        )}
      </div>
    </section>
  )
}
