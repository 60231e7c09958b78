import { useIndexStatus } from '../api/index-api'
import { useAccountListing } from '../api/numbers'
import { formatPhone } from '../lib/phone'

/** A select's options, one a number, shown formatted, the number's digits as the value. */
export function NumberOptions({ numbers }: { numbers: ReadonlyArray<{ number: string }> }) {
  return numbers.map((n) => (
    <option key={n.number} value={n.number}>
      {formatPhone(n.number)}
    </option>
  ))
}

/**
 * The option for a link's number that is not among `numbers` (the indexed ones), so the select
 * shows the number the page is about rather than its first option, saying why it is not listed:
 * being indexed, indexing stopped, nothing indexed yet, or the account does not list it. Nothing
 * is said until the index and the listing have answered ("not indexed yet" showed for seconds
 * over a number fully indexed, while the index's status loaded).
 */
export function OtherNumberOption({ number, numbers }: { number: string; numbers: ReadonlyArray<{ number: string }> }) {
  const other = number !== '' && !numbers.some((n) => n.number === number)
  const index = useIndexStatus()
  const listing = useAccountListing(other ? number : '')
  if (!other) return null
  const facts = index.status?.numbers.find((n) => n.number === number)
  const why =
    index.loading || listing.loading || listing.failed
      ? ''
      : facts && (facts.state === 'syncing' || facts.state === 'queued')
        ? ' (being indexed)'
        : facts?.state === 'error' || (facts?.state === 'paused' && facts.error)
          ? ' (indexing stopped)'
          : listing.entries.length > 0 || facts
            ? ' (not indexed yet)'
            : ' (not in this account)'
  return (
    <option value={number}>
      {formatPhone(number)}
      {why}
    </option>
  )
}
