import { useQuery } from '@tanstack/react-query'
import type { SortingState } from '@tanstack/react-table'
import { useDeferredValue, useMemo } from 'react'
import { endpointsQuery } from '../../api/callback-endpoints'
import { useIndexStatus } from '../../api/index-status'
import { numbersQuery, useNumbersPreview, type NumberTab, type OwnedNumber } from '../../api/numbers'
import { sortRows } from '../../components/data-table/features'
import { useAfterPaint } from '../../lib/after-paint'
import { auditNumbers, type AuditFilter, type AuditResult } from './audit'
import type { COLUMNS_ALL, COLUMNS_TYPED } from './columns'
import { filterRows, numberRowId, searchText, toNumberRows } from './number-rows'
import { watchNotesByNumber } from './watch-notes'

/** Up to this many numbers the audit runs with the first rows: 10–15 ms per 10,000 (src/lib/after-paint.ts), so 3 ms at most here. */
const AUDIT_INLINE_MAX = 2000

/**
 * The numbers page's data: the tab's listing, its audit, and the rows the search, audit filter
 * and sort leave, each step memoised on its own inputs so a keystroke never re-audits.
 */
export function useNumbersRows(opts: {
  tab: NumberTab
  query: string
  auditSel: readonly AuditFilter[]
  sorting: SortingState
  columns: typeof COLUMNS_ALL | typeof COLUMNS_TYPED
}) {
  const { tab, query, auditSel, sorting, columns } = opts
  const audit = auditSel.length > 0 ? auditSel : null
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
  // What the callback watch found when it last called each address (a failing one, a redirect, a
  // certificate near expiry): shown in the number's row with a link to its callback history. No
  // customer data, so no logged read; the rows never wait for it.
  const endpoints = useQuery(endpointsQuery()).data
  // Nothing found (the usual answer) is null, as before the answer: the rows are not rebuilt for it.
  const watch = useMemo(() => {
    const notes = endpoints ? watchNotesByNumber(endpoints) : null
    return notes && notes.size > 0 ? notes : null
  }, [endpoints])
  const allRows = useMemo(
    () => (data ? toNumberRows(data, findingsById, indexFacts, tidsByNumber, watch) : []),
    [data, findingsById, indexFacts, tidsByNumber, watch],
  )
  // Each number's search text, built when a search starts (in the listing's order, as allRows).
  const searching = deferredQuery.trim() !== ''
  const texts = useMemo(() => (searching && data ? data.map(searchText) : null), [searching, data])
  const listed = useMemo(
    () =>
      data && (audited || !audit) ? sortRows(filterRows(allRows, deferredQuery, audited ? auditSel : [], texts), sorting, columns) : [],
    [data, allRows, texts, deferredQuery, audit, auditSel, audited, sorting, columns],
  )
  // While a long listing's answer is parsed, its first records (src/api/numbers.ts, previewNumbers)
  // are the rows: they are the first rows in the listing's order, so only where nothing is
  // searched, filtered or sorted. The table stays busy (no row count) until the whole answer is in.
  const preview = useNumbersPreview(tab)
  const previewing =
    data === undefined &&
    preview !== null &&
    result.isPending &&
    result.failureCount === 0 &&
    query.trim() === '' &&
    !audit &&
    sorting.length === 0
  const previewRows = useMemo(
    () => (previewing ? toNumberRows(preview, null, indexFacts, null, watch) : null),
    [previewing, preview, indexFacts, watch],
  )
  const rows = previewRows ?? listed
  return { result, data, audited, auditResult: audited ? auditResult.result : null, rows }
}
