import type { RefObject } from 'react'
import type { HistoryPage, Message } from '../../api/history'
import type { SortingState } from '@tanstack/react-table'
import { sortToParam } from '../../components/data-table/features'
import { VirtualTable } from '../../components/data-table/virtual-table'
// Rows that grow with their content are measured from the first render: the engine comes with this page's chunk.
import '../../components/data-table/measured-table'
import { EmptyState } from '../../components/empty-state'
import { ExportButtons } from '../../components/export-buttons'
import { zoneLabel, type Zone } from '../../lib/dates'
import type { SetParams } from '../../lib/navigation'
import { rangeText } from '../../lib/range'
import { exportHeader, HISTORY_COLUMNS, messageRow } from './columns'
import { filtersActive, type MessageFilters } from './filters'
import { FiltersBar } from './filters-bar'
import { PhoneFold } from './phone-fold'

const messageRowId = (m: Message) => m.key

/** The log view: filters over the loaded page, its CSV, and the windowed table of messages. */
export function HistoryLog({
  number,
  tid,
  zone,
  shown,
  visible,
  filters,
  sorting,
  rowEstimate,
  tableBox,
  setParams,
}: {
  number: string
  tid: string
  zone: Zone
  shown: HistoryPage
  visible: readonly Message[]
  filters: MessageFilters
  sorting: SortingState
  rowEstimate: number
  tableBox: RefObject<HTMLDivElement | null>
  setParams: SetParams<'/numbers/$number'>
}) {
  const exportRange = shown.messages.length > 0 ? `records-${shown.start}-${shown.start + shown.messages.length - 1}` : 'empty'
  return (
    <>
      <PhoneFold summary={filtersActive(filters) ? 'Filter the loaded page (on)' : 'Filter the loaded page'} open={filtersActive(filters)}>
        <FiltersBar filters={filters} setParams={setParams} shown={visible.length} loaded={shown.messages.length} />
      </PhoneFold>
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
            estimateRowHeight={rowEstimate}
            dynamic
            height="68vh"
          />
        </div>
      )}
    </>
  )
}
