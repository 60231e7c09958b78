import { useQuery } from '@tanstack/react-query'
import { needsReplyCountQuery } from '../api/desk'
import { useIndexSummary } from '../api/index-status'
import { formatCount } from '../lib/count'

/**
 * The number of customers waiting, beside "Needs reply" in the navigation: asked for once the
 * index is known to be on and someone is signed in. A count only (GET /api/desk/needs-reply/count):
 * no customer in it, so no access-log entry for each page open. Its own chunk: the desk's API code
 * is not in the entry.
 */
export function NeedsReplyCount({ signedIn }: { signedIn: boolean }) {
  // The summary says whether the index is on: the full status lists every number (2.7 MB on a large account).
  const index = useIndexSummary()
  // Asked again every minute (the query's interval): a support lead leaves the page open and
  // expects the count to follow the queue. A hidden window does not ask (TanStack Query's
  // refetchIntervalInBackground stays false); when it shows again it asks at once if the count is
  // older than the query's staleTime (the app turns that off elsewhere).
  const q = useQuery({ ...needsReplyCountQuery(), enabled: signedIn && index.available, refetchOnWindowFocus: true })
  const total = q.data?.total
  if (total === undefined) return null
  return (
    <span className="ml-1 rounded-full bg-amber-100 px-1.5 text-xs font-semibold text-amber-950 tabular-nums">
      <span className="sr-only">: </span>
      {formatCount(total)}
      <span className="sr-only"> waiting</span>
    </span>
  )
}
