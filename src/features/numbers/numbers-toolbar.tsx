import type { ReactNode } from 'react'
import type { OwnedNumber } from '../../api/numbers'
import { FindMessagesOffer } from '../../components/find-messages-offer'
import type { SetParams } from '../../lib/navigation'
import { auditSelectionLabel, type AuditFilter } from './audit'

/**
 * The search box, the offer to find a customer's messages, the active audit filter, and the
 * table's actions (passed in as `actions`: refresh, column toggles, export).
 */
export function NumbersToolbar({
  query,
  numbers,
  audit,
  onShowAll,
  setParams,
  actions,
}: {
  query: string
  numbers: OwnedNumber[] | undefined
  audit: readonly AuditFilter[] | null
  onShowAll: () => void
  setParams: SetParams<'/'>
  actions: ReactNode
}) {
  return (
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
        isOwnNumber={(d) => !!numbers?.some((r) => r.number === d || r.number === `1${d}` || `1${r.number}` === d)}
      />
      {audit ? (
        <p className="text-sm">
          Showing <strong>{auditSelectionLabel(audit)}</strong> only.{' '}
          <button type="button" className="text-blue-800 underline" onClick={onShowAll}>
            Show all findings
          </button>
        </p>
      ) : null}
      <div className="ml-auto flex flex-wrap gap-2">{actions}</div>
    </form>
  )
}
