import { useIndexSummary } from '../api/index-status'
import { useMe } from '../api/me'
import { IndexingIndicator } from '../components/index-progress'

/**
 * The header's indexing indicator, fed by the status summary (no per-number list). Asked only
 * once someone is signed in: the status is a signed-in route, and a 401 on the sign-in page
 * would be noise.
 */
export function HeaderIndexing() {
  const me = useMe().data
  const signedIn = !!me && (me.mode === 'local' || me.user !== null)
  const summary = useIndexSummary(signedIn)
  return <IndexingIndicator progress={summary.status?.progress} />
}
