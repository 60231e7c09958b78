import type { ReactNode } from 'react'
import { SidewaysRegion } from '../../components/sideways-region'
import { notIndexedYet } from '../../api/index-status'
import type { NumberIndexStatus } from '../../api/index-api'
import { usePhoneCards } from '../../components/data-table/layout'
import { InlineConfirm, useReturnFocus } from '../../components/inline-confirm'
import { formatCount } from '../../lib/count'
import { formatDate } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { isoMs } from './iso-ms'
import type { IndexActions } from './use-index-actions'

const STATE_WORDS: Record<string, string> = {
  never: 'Not indexed',
  queued: 'Waiting to sync',
  syncing: 'Syncing',
  idle: 'Up to date',
  paused: 'Paused',
  error: 'Stopped by an error',
}

/**
 * The state in words. A number the account no longer lists is said to be so whatever its last
 * sync left ('idle' when the listing dropped it): the periodic sync passes it by and the index
 * never reports it fresh, so "Up to date" would claim what nobody keeps.
 */
function stateText(n: NumberIndexStatus): string {
  if (n.removed) return 'Removed from the account'
  if (n.forgottenAt !== null && n.state === 'never') return 'Forgotten'
  return STATE_WORDS[n.state] ?? n.state
}

/** "A", "A and B", "A, B and C". */
function listed(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/** Rows asked for at first and added per "Show more": 10,000 rows with their buttons took seconds to draw, and again on every poll. */
export const ROWS_STEP = 100

/**
 * One row per number of the page the server sent (a card each on a phone): its state, what it
 * holds, and its sync and forget buttons. An account of more than ROWS_STEP numbers gets a box
 * to find a number by its digits, a line saying how many are shown of how many match, and "Show
 * more"; the server does the finding and counting (`matched`), so only the rows shown travel.
 */
export function IndexedNumbersTable({
  numbers,
  matched,
  known,
  typed,
  finding = false,
  onTyped,
  onMore,
  isAdmin,
  actions,
}: {
  numbers: NumberIndexStatus[]
  /** How many numbers match what was typed (all of them when nothing was). */
  matched: number
  /** How many numbers the index knows: a small account shows them all, with no box and no count. */
  known: number
  typed: string
  /** The rows are the last answer's while the server finds what was typed. */
  finding?: boolean
  onTyped: (typed: string) => void
  onMore: () => void
  isAdmin: boolean
  actions: IndexActions
}) {
  const large = known > ROWS_STEP
  const digits = typed.replace(/\D/g, '')
  return (
    <div className="mt-3">
      {large ? (
        <label className="flex w-fit flex-col text-sm print:hidden">
          Find a number
          <input
            type="search"
            className="input w-56"
            inputMode="tel"
            value={typed}
            placeholder="Digits of a number"
            onChange={(e) => {
              onTyped(e.target.value)
            }}
          />
        </label>
      ) : null}
      {numbers.length > 0 ? <NumberRows numbers={numbers} isAdmin={isAdmin} actions={actions} /> : null}
      {large ? (
        <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
          <p role="status">
            {typed.trim() && !digits
              ? 'Type the digits of a number to find it.'
              : finding
                ? `Finding the numbers ${digits ? `that hold “${digits}”` : 'of the index'}…`
                : matched === 0
                  ? `No number holds the digits “${digits}”.`
                  : `Showing ${formatCount(numbers.length)} of ${formatCount(matched)} ${matched === 1 ? 'number' : 'numbers'}${
                      digits ? ` matching “${digits}”` : ''
                    }.`}
          </p>
          {matched > numbers.length && !finding ? (
            <button type="button" className="btn print:hidden" onClick={onMore}>
              Show {formatCount(Math.min(ROWS_STEP, matched - numbers.length))} more
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}

function NumberRows({ numbers, isAdmin, actions }: { numbers: NumberIndexStatus[]; isAdmin: boolean; actions: IndexActions }) {
  // A phone: each number is a card (a six-column table put its buttons off-screen).
  const cards = usePhoneCards()
  if (cards)
    return (
      <ul className="flex flex-col gap-2" aria-label="Indexed numbers">
        {numbers.map((n) => (
          <IndexedNumberCard key={n.number} n={n} isAdmin={isAdmin} actions={actions} />
        ))}
      </ul>
    )
  return (
    // Scrolls sideways in its own region if a column grows too wide for the window.
    <SidewaysRegion label="Indexed numbers (scrolls sideways)">
      <table className="w-full text-sm" aria-label="Indexed numbers">
        <thead>
          <tr className="text-left">
            <th scope="col" className="p-2">
              Number
            </th>
            <th scope="col" className="p-2">
              State
            </th>
            <th scope="col" className="p-2 text-right">
              Messages indexed
            </th>
            <th scope="col" className="p-2">
              Newest message
            </th>
            <th scope="col" className="p-2">
              Last synced
            </th>
            <th scope="col" className="p-2 print:hidden">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {numbers.map((n) => (
            <tr key={n.number} className="border-t border-slate-200 align-top">
              <th scope="row" className="whitespace-nowrap p-2 text-left font-normal">
                {formatPhone(n.number)}
              </th>
              <td className="p-2">
                <NumberState n={n} />
              </td>
              <td className="p-2 text-right tabular-nums">{indexedText(n)}</td>
              <td className="p-2">{newestText(n)}</td>
              <td className="p-2">{syncedText(n)}</td>
              <td className="p-2 print:hidden">
                <NumberActions n={n} isAdmin={isAdmin} actions={actions} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </SidewaysRegion>
  )
}

const indexedText = (n: NumberIndexStatus) =>
  notIndexedYet(n)
    ? 'not indexed yet'
    : `${formatCount(n.indexed)}${n.upstreamTotal !== null && n.upstreamTotal !== n.indexed ? ` of ${formatCount(n.upstreamTotal)}` : ''}`
const newestText = (n: NumberIndexStatus) => (n.newestDate ? formatDate(isoMs(n.newestDate), 'local') : '—')
const syncedText = (n: NumberIndexStatus) => (n.lastSyncedAt ? formatDate(isoMs(n.lastSyncedAt), 'local') : 'never')

/** A phone's card: the number as its title, the table's columns as a description list, the buttons under them. */
function IndexedNumberCard({ n, isAdmin, actions }: { n: NumberIndexStatus; isAdmin: boolean; actions: IndexActions }) {
  const titleId = `index-card-${n.number}`
  const field = (name: string, value: ReactNode) => (
    <div className="flex flex-wrap items-baseline gap-x-2">
      <dt className="text-xs font-semibold text-slate-700">{name}</dt>
      <dd className="min-w-0 break-words">{value}</dd>
    </div>
  )
  return (
    <li className="rounded border border-slate-200 px-3 py-2.5">
      <article aria-labelledby={titleId} className="flex flex-col gap-1.5 text-sm">
        <h2 id={titleId} className="font-semibold">
          {formatPhone(n.number)}
        </h2>
        <dl className="flex flex-col gap-1.5">
          {field('State', <NumberState n={n} />)}
          {field('Messages indexed', <span className="tabular-nums">{indexedText(n)}</span>)}
          {field('Newest message', newestText(n))}
          {field('Last synced', syncedText(n))}
        </dl>
        <div className="print:hidden">
          <NumberActions n={n} isAdmin={isAdmin} actions={actions} />
        </div>
      </article>
    </li>
  )
}

/** The state in words, its sync's progress, and what is worth a look. */
function NumberState({ n }: { n: NumberIndexStatus }) {
  const lineTids = Array.isArray(n.lineTids) ? n.lineTids : []
  return (
    <>
      {n.removed ? <span className="font-semibold text-amber-950">{stateText(n)}</span> : stateText(n)}
      {n.progress ? (
        <progress
          className="ml-2 align-middle"
          max={n.progress.total || 1}
          value={n.progress.done}
          aria-label={`Sync of ${formatPhone(n.number)}`}
        >
          {formatCount(n.progress.done)} of {formatCount(n.progress.total)}
        </progress>
      ) : null}
      {n.error ? <p className="text-xs text-red-800">{n.error}</p> : null}
      {n.forgottenAt !== null && n.state === 'never' ? (
        <p className="text-xs text-slate-700">
          Its messages were forgotten {formatDate(isoMs(n.forgottenAt), 'local')}. The index leaves it alone until an admin presses Sync now
          or Index all numbers.
        </p>
      ) : null}
      {n.removed ? (
        <p className="text-xs text-slate-700">
          The account&apos;s list of numbers no longer has it. What is indexed stays here until forgotten.
        </p>
      ) : null}
      {n.otherTids.length > 0 ? (
        // The numbers page's audit finding, in its words: which tid the index syncs under, and the rest.
        <p className="mt-1 text-xs text-amber-950">
          <span className="font-semibold">
            Worth a look: listed {n.otherTids.length === 1 ? 'twice' : `${n.otherTids.length + 1} times`}.
          </span>{' '}
          Indexed under tid {n.tid || '(none)'}; the account also lists it with {n.otherTids.length === 1 ? 'tid' : 'tids'}{' '}
          {listed(n.otherTids)}.
          {lineTids.length > 0
            ? ` ${lineTids.length === 1 ? 'That tid serves' : 'Those tids serve'} a history of ${lineTids.length === 1 ? 'its' : 'their'} own, indexed beside it as ${listed(lineTids.map((t, i) => `line ${i + 2} (tid ${t})`))}: search and threads show those messages under that line.`
            : ''}
        </p>
      ) : null}
      {typeof n.lineOf === 'string' ? (
        <p className="mt-1 text-xs text-slate-700">
          A second history of {formatPhone(n.lineOf)}: the account lists that number under tid {n.tid || '(none)'} too, and that tid serves
          messages of its own. Forgetting {formatPhone(n.lineOf)} forgets this line with it.
        </p>
      ) : null}
      {n.finding ? (
        // What the last walk could not follow (a total that counts more or fewer than the history serves).
        <p className="mt-1 text-xs text-amber-950">
          <span className="font-semibold">Worth a look:</span> {n.finding}
        </p>
      ) : null}
    </>
  )
}

/** Sync now and Forget… for one number. */
function NumberActions({ n, isAdmin, actions }: { n: NumberIndexStatus; isAdmin: boolean; actions: IndexActions }) {
  const { busy, confirming, setConfirming, syncOne, forget } = actions
  const { refFor, returnTo } = useReturnFocus<string>()
  return (
    <span className="flex flex-wrap gap-2">
      {/* A number an admin forgot is indexed again by an admin only (the server refuses anyone else). */}
      {isAdmin || n.forgottenAt === null || n.state !== 'never' ? (
        <button
          type="button"
          className="btn"
          onClick={() => void syncOne(n)}
          disabled={busy}
          aria-label={`Sync now: ${formatPhone(n.number)}`}
        >
          Sync now
        </button>
      ) : null}
      {isAdmin ? (
        confirming === n.number ? (
          <InlineConfirm
            // The number said in the button: in the table its column may have scrolled out of view.
            confirmLabel={`Delete ${formatCount(n.indexed)} messages of ${formatPhone(n.number)}`}
            onConfirm={() => forget(n.number)}
            onCancel={() => {
              returnTo(n.number)
              setConfirming(null)
            }}
            busy={busy}
          />
        ) : (
          <button
            ref={refFor(n.number)}
            type="button"
            className="btn"
            onClick={() => {
              setConfirming(n.number)
            }}
            disabled={busy}
            aria-label={`Forget…: ${formatPhone(n.number)}`}
          >
            Forget…
          </button>
        )
      ) : null}
    </span>
  )
}
