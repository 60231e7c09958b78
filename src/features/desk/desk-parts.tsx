import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { deskKeys } from '../../api/desk'
import { useIndexStatus, type NumberIndexStatus } from '../../api/index-api'
import { startSync } from '../../api/index-admin'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { IndexOffAlert } from '../../components/index-off-alert'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'
import { useUrlBound } from '../../lib/use-url-bound'
import { Link, useRouterState } from '@tanstack/react-router'
import { NumberOptions } from '../../components/number-options'

export type DeskPage = 'needs-reply' | 'opt-outs' | 'customer' | 'quiet-hours' | 'segments'

const DESK_PAGES = [
  ['needs-reply', 'Needs reply', '/desk/needs-reply'],
  ['opt-outs', 'Opt-outs', '/desk/opt-outs'],
  ['customer', 'Customer', '/desk/customer'],
  ['quiet-hours', 'Quiet hours', '/desk/quiet-hours'],
  ['segments', 'Encoding & segments', '/desk/segments'],
] as const satisfies ReadonlyArray<readonly [DeskPage, string, string]>

/** The desk's own pages, one link each, the current one marked; the time zone picked goes along (every desk page has one). */
export function DeskNav({ current }: { current: DeskPage }) {
  const utc = useRouterState({ select: (s) => (s.location.search as Record<string, unknown>).tz === 'utc' })
  return (
    <nav aria-label="Support desk" className="mb-3 flex flex-wrap gap-x-4 gap-y-1 border-b border-slate-200 pb-2 text-sm print:hidden">
      {DESK_PAGES.map(([page, label, to]) => (
        <Link
          key={page}
          to={to}
          search={utc ? { tz: 'utc' as const } : {}}
          aria-current={page === current ? 'page' : undefined}
          className="text-slate-700 underline-offset-2 hover:underline aria-[current=page]:font-semibold"
        >
          {label}
        </Link>
      ))}
    </nav>
  )
}

/**
 * A table that scrolls sideways on a phone inside its own focusable region, so the page itself
 * never does and a keyboard user can scroll it (axe's scrollable-region-focusable). It is the containing block of
 * the visually hidden labels inside, which would otherwise escape its clipping and widen the page.
 */
export function TableRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className="relative mt-2 max-w-full overflow-x-auto rounded border border-slate-200 bg-white print:overflow-visible"
    >
      {children}
    </div>
  )
}

export const th = 'px-2 py-2 text-left align-bottom font-semibold whitespace-nowrap print:whitespace-normal'
export const td = 'px-2 py-1.5 align-top'
/** A cell kept on one line on screen (it scrolls sideways) that wraps on paper, which cannot scroll. */
export const oneLineOnScreen = 'whitespace-nowrap print:whitespace-normal'

/**
 * What the index can tell the desk: still loading, off, or holding nothing yet (each shown in its
 * own words), else the page. `admin` decides whether "Index all numbers" is offered.
 */
export function DeskIndexGate({
  admin,
  what,
  number = '',
  children,
}: {
  admin: boolean | null
  what: string
  /** The number the page's link names, if any: one the index does not know is said so, not reported on as if it sent nothing. */
  number?: string
  children: ReactNode
}) {
  const index = useIndexStatus()
  if (index.loading) return <TableSkeleton label="Checking the message index" />
  if (!index.available) return <IndexOffAlert error={index.error} where={what} />
  const numbers = index.status?.numbers ?? []
  const indexed = numbers.reduce((a, n) => a + n.indexed, 0)
  if (indexed === 0) return <NothingIndexed admin={admin} numbers={numbers} onIndexing={() => void index.refetch()} what={what} />
  if (number && !numbers.some((n) => n.number === number))
    return (
      <EmptyState title={`${formatPhone(number)} is not a number of this account`}>
        <p>The message index knows no number {number}. Choose one of the account’s numbers above.</p>
      </EmptyState>
    )
  return (
    <>
      <IndexingNote numbers={numbers} />
      {children}
    </>
  )
}

/**
 * While numbers are being indexed, says so: a number's waits and opt-out states are worked out
 * when its indexing finishes (the server leaves them to the sync), so until then this page shows
 * them as the number's last finished sync left them. Each time a number finishes, the desk's
 * answers are asked again.
 */
function IndexingNote({ numbers }: { numbers: readonly NumberIndexStatus[] }) {
  const queryClient = useQueryClient()
  const busy = numbers.filter((n) => n.state === 'syncing' || n.state === 'queued')
  const seen = useRef(busy.length)
  useEffect(() => {
    if (busy.length < seen.current) void queryClient.invalidateQueries({ queryKey: deskKeys.all })
    seen.current = busy.length
  }, [busy.length, queryClient])
  const [first] = busy
  if (!first) return null
  return (
    <p role="status" className="mb-2 text-sm text-slate-700">
      {busy.length === 1
        ? `Indexing ${formatPhone(first.number)} is under way: its threads are brought up to date when it finishes, and this page updates then.`
        : `Indexing ${formatCount(busy.length)} numbers is under way: their threads are brought up to date as each finishes, and this page updates then.`}
    </p>
  )
}

export function NothingIndexed({
  admin,
  numbers,
  onIndexing,
  what,
}: {
  admin: boolean | null
  numbers: NumberIndexStatus[]
  onIndexing: () => void
  what: string
}) {
  const [starting, setStarting] = useState<'idle' | 'busy' | 'started' | 'failed'>('idle')
  const syncing = numbers.some((n) => n.state === 'syncing' || n.state === 'queued') || starting === 'started'
  const failing = numbers.filter((n) => n.state === 'error' || n.error)
  if (failing.length > 0 && !syncing)
    return (
      <EmptyState title="Nothing could be indexed">
        <p>
          {formatCount(failing.length)} {failing.length === 1 ? 'number' : 'numbers'} could not be read from the messaging provider
          {failing[0]?.error ? `: ${failing[0].error}` : '.'} The desk is built from the index; indexing retries on its own.
        </p>
      </EmptyState>
    )
  return (
    <EmptyState title={syncing ? 'Indexing has started: no messages are indexed yet' : 'Nothing is indexed yet'}>
      <p>The {what} is worked out from the message index, and it holds no messages yet.</p>
      {syncing ? (
        <p role="status">This page fills in as numbers are indexed.</p>
      ) : admin ? (
        <>
          <button
            type="button"
            className="btn mt-2"
            disabled={starting === 'busy'}
            onClick={() => {
              setStarting('busy')
              startSync({ all: true }).then(
                () => {
                  setStarting('started')
                  onIndexing()
                },
                () => {
                  setStarting('failed')
                },
              )
            }}
          >
            Index all numbers
          </button>
          {starting === 'failed' ? <p role="alert">Indexing could not be started. Try again, or use the Index page.</p> : null}
        </>
      ) : (
        <p>An admin can index the numbers on the Index page.</p>
      )}
    </EmptyState>
  )
}

/** A number of the account, chosen from those the index knows; '' is every number when `allowAll`. */
export function NumberSelect({
  value,
  onChange,
  allowAll,
  label = 'Number',
}: {
  value: string
  /** The URL's number changed (a pick shows at once, useUrlBound). */
  onChange: (number: string) => unknown
  allowAll: boolean
  label?: string
}) {
  const [shown, pick] = useUrlBound(value, onChange)
  const index = useIndexStatus()
  const numbers = (index.status?.numbers ?? []).filter((n) => n.indexed > 0 || n.number === value)
  // A link's number the index does not know stays chosen, and says so: without an option of its
  // own the select showed "All numbers" above a page about that one number.
  const unknown = shown !== '' && !numbers.some((n) => n.number === shown)
  return (
    <label className="flex flex-col text-sm">
      {label}
      <select
        className="input min-w-48"
        value={shown}
        onChange={(e) => {
          pick(e.target.value)
        }}
      >
        {allowAll ? <option value="">All numbers</option> : <option value="">Choose a number…</option>}
        {unknown ? (
          <option value={shown}>
            {formatPhone(shown)}
            {index.status ? ' (not in this account)' : ''}
          </option>
        ) : null}
        <NumberOptions numbers={numbers} />
      </select>
    </label>
  )
}

/** The tid the thread page needs for a number, from the index's status (empty when unknown). */
export function useTidOf(): (number: string) => string {
  const index = useIndexStatus()
  return (number) => index.byNumber.get(number)?.tid ?? ''
}

export const NOT_LEGAL_ADVICE =
  'This is a record of what the messages say, worked out by rules that can be wrong; it is not legal advice. Check any case that matters with whoever advises you on messaging law.'
