import { Link } from '@tanstack/react-router'
import { useId } from 'react'
import { useIndexSummary } from '../../api/index-status'
import { useMeta } from '../../api/meta'
import { formatCount } from '../../lib/count'
import { useDismissed } from '../../lib/use-dismissed'

export const FIRST_RUN_KEY = 'switchboard.firstRun.hidden'

/** The demo account's busiest ordinary number (the simulator's first): a history worth reading. */
const DEMO_NUMBER = '18323232323'

/**
 * What a newcomer needs on the first page they see on the simulator: what the app is, what it is
 * doing (indexing, with its progress) and a few things worth trying, each a link. Put away, it
 * stays away (in this browser). Only on the simulator: on a real account the numbers are the
 * reader's own and the guide's links would name a number they may not have.
 */
export function FirstRunGuide() {
  const { simulatorAccount, indexEnabled } = useMeta()
  const [hidden, setHidden] = useDismissed(FIRST_RUN_KEY)
  const headingId = useId()
  const summary = useIndexSummary(!!simulatorAccount && !hidden)
  if (!simulatorAccount || hidden) return null
  // Search, whole conversations and the desk read the message index: with it off, they are not offered.
  const indexed = indexEnabled !== false
  return (
    <section aria-labelledby={headingId} className="my-3 rounded border border-blue-200 bg-blue-50 p-3 text-sm text-slate-900 print:hidden">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h2 id={headingId} className="text-base font-semibold">
          Welcome to Switchboard
        </h2>
        <button
          type="button"
          className="btn"
          onClick={() => {
            setHidden(true)
          }}
        >
          Hide this guide
        </button>
      </div>
      <p className="mt-1">
        Switchboard shows a messaging account at a glance: the numbers it owns, whether their callback addresses work, and every message
        they sent and received, searchable in one place.
      </p>
      <IndexingLine enabled={indexed} progress={summary.status?.progress ?? null} />
      <h3 className="mt-2 font-semibold">Things to try</h3>
      <ul className="mt-1 list-disc space-y-1 pl-5">
        {indexed ? (
          <li>
            <Link to="/search" className="text-blue-800 underline">
              Search every message
            </Link>{' '}
            by word, customer or date, across all numbers.
          </li>
        ) : null}
        <li>
          <Link to="/numbers/$number" params={{ number: DEMO_NUMBER }} search={{}} className="text-blue-800 underline">
            Read a number’s messages
          </Link>{' '}
          {indexed ? 'and open one customer’s whole conversation.' : 'page by page, as the messaging service serves them.'}
        </li>
        <li>
          <Link to="/" search={{ severity: 'problem' }} className="text-blue-800 underline">
            See the callback audit’s problems
          </Link>
          : numbers whose callbacks are missing, unsafe or point somewhere unexpected.
        </li>
        {indexed ? (
          <li>
            <Link to="/desk/needs-reply" className="text-blue-800 underline">
              Open the desk
            </Link>
            : customers waiting for a reply, opt-outs and sends after them.
          </li>
        ) : null}
      </ul>
    </section>
  )
}

function IndexingLine({
  enabled,
  progress,
}: {
  enabled: boolean
  progress: { running: boolean; numbersDone: number; numbersTotal: number } | null
}) {
  if (!enabled) return <p className="mt-1">The message index is off on this server, so search and the desk are not available.</p>
  if (!progress || progress.numbersTotal <= 0)
    return (
      <p className="mt-1">
        {progress?.running ? 'Switchboard is reading the account’s list of numbers to index their messages. ' : 'Nothing is indexed yet. '}
        <Link to="/index" className="text-blue-800 underline">
          {progress?.running ? 'Indexing details' : 'Start indexing on the Index page'}
        </Link>
      </p>
    )
  const done = progress.numbersDone >= progress.numbersTotal
  return (
    <p className="mt-1">
      {done ? (
        <>Every number’s messages are indexed. </>
      ) : (
        <>
          Switchboard is {progress.running ? 'indexing' : 'waiting to index'} the account’s messages:{' '}
          <strong>
            {formatCount(progress.numbersDone)} of {formatCount(progress.numbersTotal)} numbers
          </strong>{' '}
          done so far. Search and the desk answer for what is indexed already.{' '}
        </>
      )}
      <Link to="/index" className="text-blue-800 underline">
        Indexing details
      </Link>
    </p>
  )
}
