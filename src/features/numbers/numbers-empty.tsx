import type { NumberTab } from '../../api/numbers'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import type { SetParams } from '../../lib/navigation'
import { auditSelectionLabel, type AuditFilter } from './audit'

/**
 * Why no rows show: the account owns none (on this tab), the audit filter is still being
 * applied, or nothing matches the search and filters (with the way out).
 */
export function NumbersEmpty({
  owned,
  tab,
  tabName,
  query,
  audit,
  audited,
  setParams,
}: {
  owned: number
  tab: NumberTab
  tabName: string
  query: string
  audit: readonly AuditFilter[] | null
  audited: boolean
  setParams: SetParams<'/'>
}) {
  if (owned === 0)
    return (
      <EmptyState title="This account owns no numbers">
        {tab === 'all' ? 'Numbers bought on the account will appear here.' : `There are no ${tabName} numbers on this account.`}
      </EmptyState>
    )
  if (!audited && audit) return <TableSkeleton label="Applying the audit filter" rows={4} />
  return (
    <EmptyState title="No numbers match">
      Nothing matches{query ? ` “${query}”` : ''}
      {audit ? ` with ${auditSelectionLabel(audit)}` : ''}.{' '}
      <button type="button" className="text-blue-800 underline" onClick={() => setParams({ q: null, audit: null, severity: null })}>
        Clear search and filters
      </button>
    </EmptyState>
  )
}
