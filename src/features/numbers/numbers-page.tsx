import { useQuery } from '@tanstack/react-query'
import type { ColumnVisibilityState } from '@tanstack/react-table'
import { useDeferredValue, useMemo } from 'react'
import { useAfterPaint } from '../../lib/after-paint'
import { useIndexStatus } from '../../api/index-status'
import { numbersQuery, type NumberTab, type OwnedNumber } from '../../api/numbers'
import { useSetParams } from '../../lib/navigation'
import type { NumbersSearch } from '../../lib/route-params'
import { ErrorAlert } from '../../components/alert'
import { ColumnToggles } from '../../components/data-table/column-toggles'
import { VirtualTable } from '../../components/data-table/virtual-table'
import { columnLabel, exportTable, parseSort, sortRows, sortToParam } from '../../components/data-table/features'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { ExportButtons } from '../../components/export-buttons'
import { FindMessagesOffer } from '../../components/find-messages-offer'
import { Tabs } from '../../components/tabs'
import {
  auditNumbers,
  auditSelectionLabel,
  auditSelectionParams,
  parseAuditSelection,
  toggleAudit,
  type AuditFilter,
  type AuditResult,
} from './audit'
import { AuditSummary } from './audit-summary'
import { COLUMN_IDS_ALL, COLUMN_IDS_TYPED, COLUMNS_ALL, COLUMNS_TYPED } from './columns'
import { filterRows, numberRowId, searchText, toNumberRows, type NumberRow } from './number-rows'
import { formatCount } from '../../lib/count'

const TABS = [
  { id: 'all', label: 'All' },
  { id: 'local', label: 'Local' },
  { id: 'tollfree', label: 'Toll-free' },
] as const satisfies ReadonlyArray<{ id: NumberTab; label: string }>

const TAB_NAME: Record<NumberTab, string> = { all: 'all', local: 'local', tollfree: 'toll-free' }

function readTab(v: string): NumberTab {
  return v === 'local' || v === 'tollfree' ? v : 'all'
}

const rowId = (r: NumberRow) => numberRowId(r.owned)

/** Up to this many numbers the audit runs with the first rows: 10–15 ms per 10,000 (src/lib/after-paint.ts), so 3 ms at most here. */
const AUDIT_INLINE_MAX = 2000

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
  const hideParam = search.hide
  const hidden = useMemo(() => new Set(hideParam.split(',').filter((id) => id && id !== 'number')), [hideParam])
  const columnVisibility = useMemo<ColumnVisibilityState>(() => Object.fromEntries([...hidden].map((id) => [id, false])), [hidden])

  // Typing stays instant: the input shows the URL's query at once, the filter follows a frame behind.
  const deferredQuery = useDeferredValue(query)

  const result = useQuery(numbersQuery(tab))
  const data = result.data
  // A long listing's audit runs after the frame that paints the first rows, the findings land a
  // frame later (its space is reserved: fixed-height rows, an audit box of constant height). A short listing is audited in the same render as its rows (well under a millisecond for the
  // demo's 60): the findings are there in the first frame, so no card grows under the reader
  // when they land. Only a long one defers it, to keep its first-rows budget.
  const deferAudit = (data?.length ?? 0) > AUDIT_INLINE_MAX
  const lateData = useAfterPaint(deferAudit ? data : undefined)
  const auditInput = deferAudit ? lateData : data
  const auditResult = useMemo<{ of: OwnedNumber[]; result: AuditResult } | null>(
    () => (auditInput ? { of: auditInput, result: auditNumbers(auditInput, numberRowId) } : null),
    [auditInput],
  )
  const audited = auditResult !== null && auditResult.of === data
  const findingsById = audited ? auditResult.result.findingsById : null
  // What the message index holds per number (the Messages and Last activity columns).
  const indexFacts = useIndexStatus().byNumber
  // The rows carry their findings and index facts: new rows once the audit lands or the index moves.
  const tidsByNumber = audited ? auditResult.result.tidsByNumber : null
  const allRows = useMemo(
    () => (data ? toNumberRows(data, findingsById, indexFacts, tidsByNumber) : []),
    [data, findingsById, indexFacts, tidsByNumber],
  )
  // Each number's search text, built when a search starts (in the listing's order, as allRows).
  const searching = deferredQuery.trim() !== ''
  const texts = useMemo(() => (searching && data ? data.map(searchText) : null), [searching, data])
  const rows = useMemo(
    () =>
      data && (audited || !audit) ? sortRows(filterRows(allRows, deferredQuery, audited ? auditSel : [], texts), sorting, columns) : [],
    [data, allRows, texts, deferredQuery, audit, auditSel, audited, sorting, columns],
  )
  const visibleIds = columnIds.filter((id) => !hidden.has(id))

  const changeTab = (next: NumberTab) => {
    // Keep search and sort where they still make sense: the country column exists only on All.
    const sort = search.sort
    setParams({ tab: next === 'all' ? null : next, sort: next !== 'all' && sort?.startsWith('country.') ? null : sort })
  }

  // Exactly what is on screen: the filtered, sorted rows and the shown columns, in order.
  const getExport = () => exportTable(columns, visibleIds, rows)
  const toggleColumn = (id: string, visible: boolean) => {
    const next = new Set(hidden)
    if (visible) next.delete(id)
    else next.add(id)
    setParams({ hide: [...next].join(',') || null })
  }

  const shown = rows.length
  const countText = !data
    ? ''
    : !audited && audit
      ? 'Applying the audit filter…'
      : `${formatCount(shown)} number${shown === 1 ? '' : 's'}${shown !== data.length ? ` of ${formatCount(data.length)}` : ''}`

  return (
    <section aria-labelledby="numbers-heading">
      <h1 id="numbers-heading" className="mb-3 text-xl font-semibold">
        Owned numbers
      </h1>
      <Tabs tabs={TABS} value={tab} onChange={changeTab} label="Number type" panelId="numbers-panel" />
      <div id="numbers-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} className="pt-3">
        <form
          role="search"
          data-print="hide"
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault()
          }}
        >
          <label className="flex flex-col text-sm">
            <span>Search numbers</span>
            <input
              type="search"
              className="input w-72 max-w-full"
              value={query}
              placeholder="Number, tid, URL, country…"
              onChange={(e) => setParams({ q: e.target.value || null }, { replace: true })}
            />
          </label>
          {/* A phone that is not one of the account's numbers is probably a customer: offer their messages. */}
          <FindMessagesOffer
            typed={query}
            isOwnNumber={(d) => !!result.data?.some((r) => r.number === d || r.number === `1${d}` || `1${r.number}` === d)}
          />
          {audit ? (
            <p className="text-sm">
              Showing <strong>{auditSelectionLabel(audit)}</strong> only.{' '}
              <button type="button" className="text-blue-800 underline" onClick={() => setAudit([])}>
                Show all findings
              </button>
            </p>
          ) : null}
          <div className="ml-auto flex flex-wrap gap-2">
            <button type="button" className="btn" onClick={() => void result.refetch()} disabled={result.isFetching}>
              {result.isFetching && data ? 'Refreshing…' : 'Refresh'}
            </button>
            <ColumnToggles
              columns={columns.flatMap((c) => (c.id && c.enableHiding !== false ? [{ id: c.id, label: columnLabel(c) }] : []))}
              hidden={hidden}
              onToggle={toggleColumn}
            />
            <ExportButtons
              getData={getExport}
              nameParts={['numbers', TAB_NAME[tab], ...auditSel, ...(query ? ['search'] : [])]}
              disabled={!data || shown === 0}
            />
          </div>
        </form>
        <p role="status" aria-live="polite" className="mt-2 text-sm text-slate-700">
          {result.isPending ? 'Loading numbers…' : countText}
        </p>

        {result.isError ? (
          <ErrorAlert error={result.error} onRetry={() => void result.refetch()} retrying={result.isFetching} keptData={!!data} />
        ) : null}

        {/* There from the first paint, loading included, at its final height: the rows below never move when the data or the audit lands. */}
        {result.isPending || (data && data.length > 0) ? (
          <AuditSummary
            audit={audited ? auditResult.result : null}
            total={data ? data.length : null}
            active={auditSel}
            onFilter={(f) => setAudit(f === null ? [] : toggleAudit(auditSel, f))}
          />
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
        ) : !data ? null : data.length === 0 ? (
          <EmptyState title="This account owns no numbers">
            {tab === 'all' ? 'Numbers bought on the account will appear here.' : `There are no ${TAB_NAME[tab]} numbers on this account.`}
          </EmptyState>
        ) : !audited && audit ? (
          <TableSkeleton label="Applying the audit filter" rows={4} />
        ) : (
          <EmptyState title="No numbers match">
            Nothing matches{query ? ` “${query}”` : ''}
            {audit ? ` with ${auditSelectionLabel(audit)}` : ''}.{' '}
            <button type="button" className="text-blue-800 underline" onClick={() => setParams({ q: null, audit: null, severity: null })}>
              Clear search and filters
            </button>
          </EmptyState>
        )}
      </div>
    </section>
  )
}
