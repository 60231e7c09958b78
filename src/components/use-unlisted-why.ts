import { useIndexStatus } from '../api/index-api'
import { useAccountListing } from '../api/numbers'

/**
 * Why a link's number is not among `numbers` (the indexed ones) a picker offers, so the picker
 * can show the number the page is about and say why it is not listed: being indexed, indexing
 * stopped, nothing indexed yet, or the account does not list it. '' when it is listed, and until
 * the index and the listing have answered ("not indexed yet" showed for seconds over a number
 * fully indexed, while the index's status loaded).
 */
export function useUnlistedWhy(number: string, numbers: ReadonlyArray<{ number: string }>): string {
  const other = number !== '' && !numbers.some((n) => n.number === number)
  const index = useIndexStatus()
  const listing = useAccountListing(other ? number : '')
  if (!other || index.loading || listing.loading || listing.failed) return ''
  const facts = index.byNumber.get(number)
  if (facts && (facts.state === 'syncing' || facts.state === 'queued')) return 'Being indexed'
  if (facts?.state === 'error' || (facts?.state === 'paused' && facts.error)) return 'Indexing stopped'
  return listing.entries.length > 0 || facts ? 'Not indexed yet' : 'Not in this account'
}
