import type { NumberIndexStatus } from '../../api/index-api'
import { EmptyState } from '../../components/empty-state'
import { StartIndexingButton, useStartIndexing } from '../../components/index-gate'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'

/** Text that is a phone number typed into the message-text box: digits with phone punctuation only. */
export function phoneInText(q: string): string | null {
  const t = q.trim()
  if (!/^[\d\s().+-]+$/.test(t)) return null
  const digits = t.replace(/\D/g, '')
  return digits.length >= 7 && digits.length <= 15 ? digits : null
}

/** Whether the empty result for this scope offers "Index all numbers" itself (nothing indexed, nothing failing or syncing, an admin). */
export function emptyResultOffersIndexing(scope: NumberIndexStatus[], admin: boolean | null): boolean {
  const failing = scope.some((n) => n.state === 'error' || n.error)
  const indexed = scope.reduce((a, n) => a + n.indexed, 0)
  const syncing = scope.some((n) => n.state === 'syncing' || n.state === 'queued')
  return !!admin && !failing && indexed === 0 && !syncing
}

/**
 * Zero matches, in the words of its cause: "Try fewer filters" only when the filters are the
 * likely cause, not when nothing is indexed, when indexing failed (the provider down), or when a
 * phone number went into the text box.
 */
export function NoMatches({
  q,
  scope,
  admin,
  onSearchParty,
  onIndexing,
}: {
  q: string
  /** The index's status of the numbers the search covers. */
  scope: NumberIndexStatus[]
  admin: boolean | null
  onSearchParty: (digits: string) => void
  onIndexing: () => void
}) {
  const { state: starting, start, failure } = useStartIndexing(onIndexing)
  const phone = phoneInText(q)
  if (phone)
    return (
      <EmptyState title={`No message text contains “${q.trim()}”`}>
        <p>That looks like a phone number, and this box searches the words of messages.</p>
        <button
          type="button"
          className="btn mt-2"
          onClick={() => {
            onSearchParty(phone)
          }}
        >
          Search by other party instead? ({formatPhone(phone)})
        </button>
      </EmptyState>
    )
  const failing = scope.filter((n) => n.state === 'error' || n.error)
  const indexed = scope.reduce((a, n) => a + n.indexed, 0)
  const cause = failing.find((n) => n.error)?.error
  if (failing.length > 0)
    return (
      <EmptyState title={indexed === 0 ? 'Nothing could be indexed' : 'No messages match, and some numbers could not be indexed'}>
        <p>
          {formatCount(failing.length)} {failing.length === 1 ? 'number' : 'numbers'} could not be read from the messaging provider
          {cause ? `: ${cause}` : '.'} Their messages are not searchable until the provider answers again; indexing retries on its own.
        </p>
      </EmptyState>
    )
  if (indexed === 0) {
    const syncing = scope.some((n) => n.state === 'syncing' || n.state === 'queued')
    return (
      <EmptyState
        title={syncing || starting === 'started' ? 'Indexing has started: no messages are indexed yet' : 'Nothing is indexed yet'}
      >
        <p>Search looks through the message index, and it holds no messages for these numbers yet.</p>
        {syncing || starting === 'started' ? (
          <p role="status">Matches appear here as numbers are indexed.</p>
        ) : admin ? (
          <StartIndexingButton
            label="Index all numbers"
            state={starting}
            failure={failure}
            onStart={() => {
              start({ all: true })
            }}
          />
        ) : (
          <p>An admin can index the numbers on the Index page.</p>
        )}
      </EmptyState>
    )
  }
  return <EmptyState title="No messages match">Try fewer filters or a shorter text.</EmptyState>
}
