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
 * the account lists it but nothing is indexed yet, or the account does not list it.
 */
export function OtherNumberOption({ number, numbers }: { number: string; numbers: ReadonlyArray<{ number: string }> }) {
  const other = number !== '' && !numbers.some((n) => n.number === number)
  const listing = useAccountListing(other ? number : '')
  if (!other) return null
  return (
    <option value={number}>
      {formatPhone(number)}
      {listing.loading || listing.failed ? '' : listing.entries.length > 0 ? ' (not indexed yet)' : ' (not in this account)'}
    </option>
  )
}
