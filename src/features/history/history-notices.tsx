import { Link } from '@tanstack/react-router'
import { useAccountListing } from '../../api/numbers'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'
import { pageCount } from '../../lib/range'

/** A history link without its tid cannot be served: say so and point at the numbers list. */
export function MissingTid({ number }: { number: string }) {
  return (
    <section>
      <h1 className="text-xl font-semibold">History of {formatPhone(number)}</h1>
      <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900">
        <p className="font-semibold">This link is missing the number&apos;s tid.</p>
        <p className="text-sm">
          Open the number from the <Link to="/">numbers list</Link> to get a complete link.
        </p>
        <ListedTids number={number} tid={null} />
      </div>
    </section>
  )
}

/**
 * The tids the account's listing gives a number, other than `tid` (a link's, refused): links to
 * its history under each. Nothing while the listing loads, or when it lists none other.
 */
export function ListedTids({ number, tid }: { number: string; tid: string | null }) {
  const others = useAccountListing(number).entries.filter((n) => n.tid !== tid)
  if (others.length === 0) return null
  return (
    <p className="mt-1 text-sm" data-testid="listed-tids">
      {tid === null ? 'The account lists this number' : `The account lists this number under another tid than ${tid}`}:{' '}
      {others.map((n, i) => (
        <span key={`${n.number}|${n.tid}`}>
          {i > 0 ? ', ' : null}
          <Link to="/numbers/$number" params={{ number: n.number }} search={{ tid: n.tid }} className="underline">
            open its history (tid {n.tid})
          </Link>
        </span>
      ))}
      .
    </p>
  )
}

/** A link asked for a page past the end and was moved to the last page. */
export function PastEndNotice({ past, total, size }: { past: number | null; total: number | null; size: number }) {
  if (past === null || total === null) return null
  return (
    <div role="status" className="my-2 rounded border border-amber-600 bg-amber-50 p-2 text-sm text-amber-950">
      Page {formatCount(past)} does not exist: this history has {formatCount(pageCount(total, size))}{' '}
      {pageCount(total, size) === 1 ? 'page' : 'pages'} of {size}. Showing the last page.
    </div>
  )
}

/** New messages shifted the record numbers while the reader browsed. */
export function DriftNotice({ drifted, onNewest }: { drifted: { mostRecentId: string | null } | null; onNewest: () => void }) {
  if (!drifted) return null
  return (
    <div
      role="status"
      className="my-2 flex flex-wrap items-center gap-2 rounded border border-amber-600 bg-amber-50 p-2 text-sm text-amber-950"
    >
      <span>
        New messages arrived since you started browsing (newest id now {drifted.mostRecentId}); record numbers have shifted, so pages may
        repeat or skip messages.
      </span>
      <button type="button" className="btn print:hidden" onClick={onNewest}>
        Go to newest
      </button>
    </div>
  )
}
