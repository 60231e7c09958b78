import { can, whoCan } from '../../../contract/roles'
import type { IndexStatus } from '../../api/index-api'
import { InlineConfirm, useReturnFocus } from '../../components/inline-confirm'
import type { Role } from '../../api/me'
import { formatCount } from '../../lib/count'
import { formatDate, zoneLabel } from '../../lib/dates'
import { isoMs } from './iso-ms'
import type { IndexActions } from './use-index-actions'

/** How much of the account is indexed, on which engine, and the actions over every number. */
export function IndexSummary({
  status,
  role,
  actions,
}: {
  status: IndexStatus | undefined
  role: Role | undefined
  actions: IndexActions
}) {
  const { busy, confirming, setConfirming, indexAll, forget } = actions
  const { refFor, returnTo } = useReturnFocus<string>()
  const f = status?.freshness
  const numbers = status?.numbers ?? []
  // Queued numbers are in the freshness's "syncing" too: with the list at hand, those running and
  // those waiting are told apart (a first start read "36 syncing now" while 2 ran).
  const running = numbers.filter((n) => n.state === 'syncing').length
  const waiting = numbers.filter((n) => n.state === 'queued').length
  const stopped = numbers.filter((n) => n.state === 'error' || n.state === 'paused').length
  // The freshness's list stops at 100 names: its count is the server's.
  const syncingCount = f ? (f.syncingCount ?? f.syncing.length) : 0
  // What the clauses below add up to: "23 of 60 fully indexed; 2 syncing now, 36 waiting" is 61 of 60
  // when a whole number is waiting for its new messages, and the sentence has to say so.
  const counted = (f?.numbersComplete ?? 0) + (numbers.length > 0 ? running + waiting + stopped : syncingCount)
  const busyWords =
    numbers.length > 0
      ? [running > 0 ? `${formatCount(running)} syncing now` : '', waiting > 0 ? `${formatCount(waiting)} waiting to sync` : '']
          .filter(Boolean)
          .join(', ')
      : `${formatCount(syncingCount)} syncing or waiting to sync`
  return (
    <div className="mt-3 flex flex-wrap items-center gap-3">
      <p className="text-sm">
        {formatCount(f?.numbersComplete ?? 0)} of {formatCount(f?.numbersKnown ?? 0)} numbers fully indexed
        {f?.indexedUpTo ? `, up to ${formatDate(isoMs(f.indexedUpTo), 'local')} (${zoneLabel('local')})` : ''}
        {f && syncingCount > 0 && busyWords
          ? `; ${busyWords}${
              // The counts overlap when a number already whole fetches its new messages: said, so they need not add up.
              counted > f.numbersKnown ? ', fully indexed ones among them, fetching new messages' : ''
            }`
          : ''}
        {stopped > 0 ? `; ${formatCount(stopped)} stopped by an error or a refusal (below)` : ''}. Engine:{' '}
        {status?.engine === 'postgres' ? 'PostgreSQL server' : 'PGlite (embedded)'}.
      </p>
      <button type="button" className="btn print:hidden" onClick={() => void indexAll()} disabled={busy}>
        Index all numbers
      </button>
      {role && can(role, 'forgetMessages') ? (
        confirming === '*' ? (
          <InlineConfirm
            confirmLabel="Forget everything"
            onConfirm={() => forget(null)}
            onCancel={() => {
              returnTo('*')
              setConfirming(null)
            }}
            busy={busy}
          >
            <span className="text-sm">Delete every indexed message of every number?</span>
          </InlineConfirm>
        ) : (
          <button
            ref={refFor('*')}
            type="button"
            className="btn print:hidden"
            onClick={() => {
              setConfirming('*')
            }}
            disabled={busy || numbers.length === 0}
          >
            Forget all…
          </button>
        )
      ) : role ? (
        // The missing control says who has it, as the missing exports do.
        <p className="text-sm text-slate-700">
          Forgetting indexed messages is for {whoCan('forgetMessages')}: ask one of your team&rsquo;s admins.
        </p>
      ) : null}
    </div>
  )
}
