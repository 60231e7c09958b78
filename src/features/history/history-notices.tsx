import { Link } from '@tanstack/react-router'
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
      </div>
    </section>
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
