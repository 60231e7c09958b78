import type { IndexProgress } from '../api/index-status'
import { formatCount, formatDuration } from '../lib/count'
import { Link } from '@tanstack/react-router'

/**
 * Share of the account's numbers done, 0–100, whole; null before the account's numbers are known.
 * Numbers, not messages: a number's total is only learnt when its sync first reads it, so a bar of
 * messages would stand full while 59 of 60 numbers are still to come.
 */
export function numberPercent(p: IndexProgress): number | null {
  if (p.numbersTotal <= 0) return null
  return Math.min(100, Math.floor((p.numbersDone / p.numbersTotal) * 100))
}

/** Every number done, and syncs running all the same: the periodic look for new messages, not indexing. */
function onlyCatchingUp(p: IndexProgress): boolean {
  return p.running && p.numbersTotal > 0 && p.numbersDone >= p.numbersTotal
}

/**
 * The header's sign that the account is being indexed: "Indexing 12/60" (numbers done of the
 * account's), a small bar of the same, and a link to the Index page for the rest.
 * Nothing at all when no sync runs, so a finished index leaves the header as it was; nothing
 * either while a fully indexed account is only looked over for new messages ("Indexing 60/60"
 * for a few seconds after every start said there was work left when there was none).
 */
export function IndexingIndicator({ progress }: { progress: IndexProgress | null | undefined }) {
  if (!progress?.running || onlyCatchingUp(progress)) return null
  const pct = numberPercent(progress)
  return (
    <span className="flex items-center gap-2 text-sm whitespace-nowrap print:hidden">
      <span
        role="progressbar"
        aria-label="Indexing the account"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct ?? undefined}
        aria-valuetext={pct === null ? 'Starting' : `${formatCount(progress.numbersDone)} of ${formatCount(progress.numbersTotal)} numbers`}
        className="relative block h-2 w-14 overflow-hidden rounded bg-slate-200"
      >
        {/* A bar of unknown length would claim a figure it does not have: none is drawn until one is known. */}
        {pct !== null ? <span className="absolute inset-y-0 left-0 bg-blue-700" style={{ width: `${pct}%` }} /> : null}
      </span>
      <Link to="/index" className="text-blue-800 underline-offset-2 hover:underline">
        Indexing {formatCount(progress.numbersDone)}/{formatCount(progress.numbersTotal)}
        <span className="sr-only"> numbers: progress on the Index page</span>
      </Link>
    </span>
  )
}

/**
 * The Index page's account-wide figures: numbers done of the account's, messages held of the
 * upstream's totals, the rate this server's syncs store them at, and the time left at that rate.
 * Every figure comes from the server (GET /api/index/status `progress`); none is guessed here.
 */
export function OverallProgress({ progress }: { progress: IndexProgress }) {
  const pct = numberPercent(progress)
  const finished = !progress.running && progress.numbersTotal > 0 && progress.numbersDone >= progress.numbersTotal
  const catchingUp = onlyCatchingUp(progress)
  const indexing = progress.running && !catchingUp
  const rate = progress.ratePerSecond
  return (
    <section aria-labelledby="overall-progress-heading" className="mt-3 rounded border border-slate-200 bg-white p-3 text-sm">
      <h2 id="overall-progress-heading" className="font-semibold">
        {catchingUp
          ? 'The whole account is indexed; looking for new messages'
          : progress.running
            ? 'Indexing the account'
            : finished
              ? 'The whole account is indexed'
              : 'Indexing is not running'}
      </h2>
      {indexing ? (
        <progress className="mt-2 w-full max-w-xl" aria-label="Numbers of the account indexed" max={100} value={pct ?? undefined}>
          {pct === null ? 'Starting' : `${pct}%`}
        </progress>
      ) : null}
      <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 sm:grid-cols-[auto_1fr_auto_1fr]">
        <dt className="text-slate-700">Numbers done</dt>
        <dd className="tabular-nums">
          {formatCount(progress.numbersDone)} of {formatCount(progress.numbersTotal)}
        </dd>
        <dt className="text-slate-700">Messages indexed</dt>
        <dd className="tabular-nums">
          {formatCount(progress.messages)}
          {progress.messagesTotal > progress.messages ? ` of ${formatCount(progress.messagesTotal)} known so far` : ''}
        </dd>
        <dt className="text-slate-700">Rate</dt>
        <dd className="tabular-nums">
          {rate !== null ? `${formatCount(rate)} messages/s` : progress.running ? 'measuring…' : 'none: no sync is storing messages'}
        </dd>
        <dt className="text-slate-700">Time left</dt>
        <dd className="tabular-nums">
          {finished || catchingUp
            ? 'none'
            : progress.secondsLeft !== null
              ? formatDuration(progress.secondsLeft)
              : progress.running
                ? 'not known yet'
                : 'not known: no sync is running'}
        </dd>
      </dl>
      {indexing ? (
        <p className="mt-2 text-xs text-slate-700">
          Totals grow as each number is first read from the provider, so the time left can rise before it falls.
        </p>
      ) : null}
    </section>
  )
}
