import { useState } from 'react'
import { whyNotStarted } from '../../components/index-gate'
import type { Freshness, IndexProgress } from '../../api/index-status'
import { formatCount } from '../../lib/count'
import { formatDate } from '../../lib/dates'

/**
 * "17 of 17 numbers indexed, up to 12:04" and, while some are not, how many (the server's counts): still indexing
 * when their sync is queued or running, else not fully indexed (a sync that stopped short or
 * failed is not indexing).
 */
export function coverageText(f: Freshness, zone: 'local' | 'utc'): string {
  const upTo = f.indexedUpTo ? `, up to ${formatDate(Date.parse(f.indexedUpTo), zone)}` : ''
  // The server's counts: its lists stop at 100 names, and "100 numbers not fully indexed" on a
  // 10,000-number account was a list's length read as a count. An older server sends only lists.
  const syncing = new Set(f.syncing)
  const short = f.incompleteCount ?? f.incomplete.length
  const now = f.incompleteSyncingCount ?? f.incomplete.filter((n) => syncing.has(n)).length
  const numbers = (n: number) => `${formatCount(n)} ${n === 1 ? 'number' : 'numbers'}`
  const still =
    short === 0
      ? ''
      : now === short
        ? `; ${numbers(short)} still indexing: results may be incomplete`
        : `; ${numbers(short)} not fully indexed${now > 0 ? `, ${formatCount(now)} of them indexing now` : ''}: results may be incomplete`
  // Before the account was first listed the index knows no number: "0 of 0" read as an account without numbers.
  if (f.numbersKnown === 0) return 'No number is indexed yet.'
  return `${formatCount(f.numbersComplete)} of ${formatCount(f.numbersKnown)} numbers indexed${upTo}${still}.`
}

/**
 * What a search covers, and, when indexing has stopped short or never started (the server does
 * not index on its own with INDEX_AUTO_SYNC=off), the way to start it. The sync route is open to
 * anyone signed in, so the offer is too.
 */
export function SearchCoverage({
  freshness,
  progress,
  autoSync,
  accountListed,
  zone,
  onStart,
  canOffer = true,
}: {
  freshness: Freshness
  progress: IndexProgress | null
  autoSync: boolean | null
  /** False: the index knows only the numbers someone opened, not the account's whole list. */
  accountListed: boolean | null
  zone: 'local' | 'utc'
  onStart: () => Promise<void>
  /** False where the page already offers the same start (the empty result's own button). */
  canOffer?: boolean
}) {
  const [starting, setStarting] = useState<'idle' | 'busy' | 'started' | 'failed'>('idle')
  const [failure, setFailure] = useState<string | null>(null)
  const running = !!progress?.running
  const short =
    accountListed === false ||
    (progress ? progress.numbersTotal === 0 || progress.numbersDone < progress.numbersTotal : freshness.incomplete.length > 0)
  const offer = canOffer && !running && short && starting !== 'started'
  return (
    <div className="text-sm text-slate-700">
      <p>{coverageText(freshness, zone)}</p>
      {offer ? (
        <div className="mt-1 flex flex-wrap items-center gap-2 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-amber-950">
          <p>
            {progress && progress.numbersTotal === 0
              ? 'Nothing has been indexed yet'
              : accountListed === false
                ? 'Only the numbers someone opened are indexed'
                : 'Indexing is not running'}
            {autoSync === false ? ': this server does not index the account on its own (INDEX_AUTO_SYNC=off).' : '.'} Search sees only what
            is indexed.
          </p>
          <button
            type="button"
            className="btn"
            disabled={starting === 'busy'}
            onClick={() => {
              setStarting('busy')
              onStart().then(
                () => {
                  setStarting('started')
                },
                (err: unknown) => {
                  setFailure(whyNotStarted(err))
                  setStarting('failed')
                },
              )
            }}
          >
            Index all numbers
          </button>
          {starting === 'failed' ? <p role="alert">Indexing could not be started: {failure} Try again, or use the Index page.</p> : null}
        </div>
      ) : null}
      {starting === 'started' ? <p role="status">Indexing has started: matches grow as numbers are indexed.</p> : null}
    </div>
  )
}
