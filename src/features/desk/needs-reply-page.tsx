import { toApiError } from '../../api/errors'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useReturnFocus } from '../../components/inline-confirm'
import { useState } from 'react'
import {
  deskKeys,
  deskSettingsQuery,
  markHandled,
  undoHandled,
  needsReplyExport,
  needsReplyQuery,
  saveDeskSettings,
  type QueueEntry,
} from '../../api/desk'
import { ErrorAlert } from '../../components/alert'
import { PrintHeader } from '../../components/print-header'
import { CustomerLink } from '../../components/customer-link'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { BodyText } from '../../components/message/message-parts'
import { formatCount } from '../../lib/count'
import { exactUtc, formatDate } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import type { NeedsReplySearch } from '../../lib/route-params'
import { Link } from '@tanstack/react-router'
import { useSetParams } from '../../lib/navigation'
import { usePhoneCards } from '../../components/data-table/layout'
import { DeskIndexGate, DeskNav, NumberSelect, ReportExportButton, TableRegion, td, th, useTidOf } from './desk-parts'
import { formatWait, parseThreshold, msOf, whoDid } from './format'
import { useMe } from '../../api/me'
import { ZoneToggle } from '../../components/zone-toggle'

/**
 * Who is waiting for us: every customer whose last messages have had no reply on that number for
 * longer than the team's threshold, longest wait first. A reply found by the index's sync takes
 * them off by itself; "Mark handled" does it for a reply by phone or email.
 */
export function NeedsReplyPage({ search, admin }: { search: NeedsReplySearch; admin: boolean | null }) {
  const setParams = useSetParams('/desk/needs-reply')
  return (
    <section aria-labelledby="needs-reply-heading">
      <DeskNav current="needs-reply" />
      <PrintHeader
        title="Needs reply"
        number={search.number || null}
        holds={`${search.number ? '' : 'All numbers. '}Waiting times as at the time printed`}
        zone={search.tz}
      />
      <h1 id="needs-reply-heading" className="text-xl font-semibold">
        Needs reply
      </h1>
      <p className="mt-1 text-sm text-slate-700">
        Customers whose messages have had no reply on that number, longest wait first. A reply found in the message index takes them off the
        queue by itself; use “Mark handled” when you answered by phone or email.
      </p>
      <div className="mt-3 flex flex-wrap items-end gap-3 print:hidden">
        <NumberSelect value={search.number} allowAll onChange={(n) => setParams({ number: n || null }, { replace: true })} />
        <ZoneToggle zone={search.tz} onChange={(tz) => setParams({ tz }, { replace: true })} />
      </div>
      <ThresholdLine admin={admin} />
      <DeskIndexGate admin={admin} what="needs-reply queue" number={search.number}>
        <Queue search={search} />
      </DeskIndexGate>
    </section>
  )
}

/** The team's threshold, said in words; an admin can change it. */
export function ThresholdLine({ admin }: { admin: boolean | null }) {
  const me = useMe().data?.user?.name
  const settings = useQuery(deskSettingsQuery())
  const qc = useQueryClient()
  const [editing, setEditing] = useState(false)
  const [text, setText] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const { refFor, returnTo } = useReturnFocus<'threshold'>()
  const save = useMutation({
    mutationFn: saveDeskSettings,
    onSuccess: (s) => {
      qc.setQueryData(deskKeys.settings(), s)
      void qc.invalidateQueries({ queryKey: deskKeys.all })
      returnTo('threshold')
      setEditing(false)
    },
  })
  const minutes = settings.data?.thresholdMinutes
  // With the index off there is no queue to judge by it; the notice below says why.
  if (settings.isError && toApiError(settings.error).kind === 'index_off') return null
  return (
    <div className="mt-3 text-sm">
      <p>
        {minutes === undefined
          ? settings.isError
            ? 'The team’s threshold could not be read.'
            : 'Reading the team’s threshold…'
          : `A customer joins the queue once they have waited ${minutes} ${minutes === 1 ? 'minute' : 'minutes'} (the team’s threshold${
              settings.data?.updatedBy ? `, set by ${whoDid(settings.data.updatedBy, me)}` : ', the default'
            }).`}{' '}
        {admin && minutes !== undefined && !editing ? (
          <button
            ref={refFor('threshold')}
            type="button"
            className="btn ml-1 print:hidden"
            onClick={() => {
              setText(String(minutes))
              setProblem(null)
              setEditing(true)
            }}
          >
            Change threshold
          </button>
        ) : null}
      </p>
      {editing ? (
        <form
          className="mt-2 flex flex-wrap items-end gap-2"
          aria-label="Team threshold"
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return
            e.preventDefault()
            returnTo('threshold')
            setEditing(false)
          }}
          onSubmit={(e) => {
            e.preventDefault()
            const parsed = parseThreshold(text)
            if ('error' in parsed) {
              setProblem(parsed.error)
              return
            }
            setProblem(null)
            save.mutate(parsed.minutes)
          }}
        >
          <label className="flex flex-col">
            Threshold (minutes)
            <input
              className="input w-32"
              inputMode="numeric"
              value={text}
              onChange={(e) => {
                setText(e.target.value)
              }}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? 'threshold-problem' : undefined}
              autoFocus
            />
          </label>
          <button type="submit" className="btn btn-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save threshold'}
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => {
              returnTo('threshold')
              setEditing(false)
            }}
          >
            Cancel
          </button>
          {problem ? (
            <p id="threshold-problem" role="alert" className="w-full text-red-800">
              {problem}
            </p>
          ) : null}
          {save.isError ? (
            <div className="w-full">
              <ErrorAlert error={save.error} doing="saving the threshold" takeFocus />
            </div>
          ) : null}
        </form>
      ) : null}
    </div>
  )
}

/** Focus for an element as it is drawn (a ref callback of stable identity: it runs on mount only). */
const focusOnMount = (el: HTMLElement | null) => el?.focus()

function Queue({ search }: { search: NeedsReplySearch }) {
  const me = useMe().data?.user?.name
  const number = search.number || null
  const q = useQuery(needsReplyQuery(number))
  const qc = useQueryClient()
  const tidOf = useTidOf()
  const [done, setDone] = useState<{ party: string; number: string; by: string; at: string; undo: () => Promise<unknown> } | null>(null)
  const [undone, setUndone] = useState<string | null>(null)
  const cards = usePhoneCards()
  // "Mark handled" is one tap (a phone, Enter): a mistake is undone from its confirmation.
  // The mark undone is the one whose Undo was pressed: a mark made while the undo was on its way keeps its confirmation.
  const undo = useMutation({
    mutationFn: (d: NonNullable<typeof done>) => d.undo(),
    onSuccess: (_r, d) => {
      setUndone(`Undone: ${d.party} on ${d.number} is as it was before the mark.`)
      setDone((cur) => (cur === d ? null : cur))
      void qc.invalidateQueries({ queryKey: deskKeys.all })
    },
  })
  const handle = useMutation({
    // Up to the message shown: one from them indexed later is not marked with it.
    mutationFn: (e: QueueEntry) => markHandled(e.number, e.party, e.lastInbound.ordinal),
    onSuccess: (r) => {
      setDone({
        party: formatPhone(r.party),
        number: formatPhone(r.number),
        by: r.handledBy ? whoDid(r.handledBy, me) : 'you',
        at: formatDate(msOf(r.handledAt), search.tz),
        undo: () => undoHandled(r.number, r.party, r.handledAt ?? ''),
      })
      setUndone(null)
      undo.reset()
      void qc.invalidateQueries({ queryKey: deskKeys.all })
    },
  })
  if (q.isPending) return <TableSkeleton label="Loading the needs-reply queue" />
  if (q.isError)
    return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="the needs-reply queue" />
  const { rows, total, thresholdMinutes } = q.data
  const zone = search.tz
  const mark = (e: QueueEntry) => {
    setDone(null)
    handle.mutate(e)
  }
  const shown: ShownProps = {
    rows,
    caption: `Customers waiting for a reply, longest wait first: ${formatCount(rows.length)} of ${formatCount(total)} shown`,
    zone,
    me,
    tidOf,
    pending: handle.isPending,
    onMark: mark,
  }
  return (
    <>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <p role="status" aria-live="polite" className="font-semibold tabular-nums">
          {total === 0
            ? 'Nobody is waiting'
            : `${formatCount(total)} ${total === 1 ? 'customer is' : 'customers are'} waiting${number ? ` on ${formatPhone(number)}` : ''}`}
          {q.isFetching ? <span className="ml-2 text-sm font-normal text-slate-700">(updating…)</span> : null}
        </p>
        {rows.length > 0 ? (
          <ReportExportButton
            report={needsReplyExport(number, zone)}
            label={`Needs reply${number ? ` on ${formatPhone(number)}` : ''}`}
            total={total}
          />
        ) : null}
      </div>
      {done ? (
        <p
          key={`${done.party}|${done.number}|${done.at}`}
          ref={focusOnMount}
          tabIndex={-1}
          role="status"
          className="mt-2 text-sm text-green-900"
        >
          {/* Each number kept whole: on a phone "(512) 947-4129" broke after its dash. */}
          Marked handled: <span className="whitespace-nowrap">{done.party}</span> on{' '}
          <span className="whitespace-nowrap">{done.number}</span>, by {done.by} at <span className="whitespace-nowrap">{done.at}</span>.{' '}
          <button
            type="button"
            className="btn ml-1 print:hidden"
            disabled={undo.isPending}
            onClick={() => {
              undo.mutate(done)
            }}
          >
            Undo
          </button>
        </p>
      ) : null}
      {undone ? (
        <p key={undone} ref={focusOnMount} tabIndex={-1} role="status" className="mt-2 text-sm text-green-900">
          {undone}
        </p>
      ) : null}
      {undo.isError ? <ErrorAlert error={undo.error} doing="undoing the mark" takeFocus /> : null}
      {handle.isError ? (
        <ErrorAlert
          error={handle.error}
          doing={`marking ${formatPhone(handle.variables.party)} on ${formatPhone(handle.variables.number)} handled`}
          takeFocus
        />
      ) : null}
      {rows.length === 0 ? (
        <EmptyState title={number ? `Nobody is waiting on ${formatPhone(number)}` : 'Nobody is waiting for a reply'}>
          <p>
            Every customer who wrote has had a reply, or has waited less than {thresholdMinutes}{' '}
            {thresholdMinutes === 1 ? 'minute' : 'minutes'} so far.
          </p>
        </EmptyState>
      ) : cards ? (
        <QueueCards {...shown} />
      ) : (
        <QueueTable {...shown} />
      )}
      {total > rows.length ? (
        <p className="mt-2 text-sm text-slate-700">
          The {formatCount(rows.length)} longest waits are shown, of {formatCount(total)}. Choose a number to see its own queue.
        </p>
      ) : null}
    </>
  )
}

/** The queue's rows as Queue shows them, and what each row's actions need. */
type ShownProps = {
  rows: QueueEntry[]
  caption: string
  zone: NeedsReplySearch['tz']
  me: string | undefined
  tidOf: ReturnType<typeof useTidOf>
  pending: boolean
  onMark: (e: QueueEntry) => void
}

const entryKey = (e: QueueEntry) => `${e.number}|${e.party}`

/**
 * A phone: each customer is a card, their wait and Mark handled in view (as a table they sat
 * past two columns of sideways scrolling).
 */
function QueueCards({ rows, caption, zone, me, tidOf, pending, onMark }: ShownProps) {
  return (
    <ul className="mt-2 flex flex-col gap-2" aria-label={caption}>
      {rows.map((e) => (
        <li key={entryKey(e)} className="rounded border border-slate-200 bg-white px-3 py-2.5 text-sm">
          <article aria-label={`${formatPhone(e.party)}, waiting on ${formatPhone(e.number)}`} className="flex flex-col gap-1.5">
            <div className="flex flex-wrap items-baseline justify-between gap-x-3">
              <h2 className="font-semibold">
                <CustomerLink party={e.party} />
              </h2>
              <span className="font-semibold tabular-nums">{formatWait(e.waitedMs)}</span>
            </div>
            <p className="text-xs text-slate-700">
              on <span className="whitespace-nowrap">{formatPhone(e.number)}</span>
            </p>
            <OptedOutBadge e={e} />
            <LastMessage e={e} />
            <WaitedSince e={e} zone={zone} me={me} />
            <div className="flex flex-wrap items-center gap-3 print:hidden">
              <MarkButton e={e} pending={pending} onMark={onMark} />
              <ThreadLink e={e} zone={zone} tid={tidOf(e.number)} />
            </div>
          </article>
        </li>
      ))}
    </ul>
  )
}

/** A wider screen: the queue as a table. */
function QueueTable({ rows, caption, zone, me, tidOf, pending, onMark }: ShownProps) {
  return (
    <TableRegion label="Needs-reply queue">
      <table className="w-full border-collapse text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-50">
          <tr>
            {/* The customer column stays put while a narrow window scrolls the table sideways: "Mark handled" is never shown without whom it is for. */}
            <th scope="col" className={`${th} sticky left-0 z-[1] bg-slate-50`}>
              Customer
            </th>
            <th scope="col" className={th}>
              Number
            </th>
            <th scope="col" className={th}>
              {/* Opt-outs aside (contract/desk/needs-reply.ts): a STOP after a question hid the question. */}
              Their last message
            </th>
            <th scope="col" className={th}>
              Waiting
            </th>
            <th scope="col" className={`${th} print:hidden`}>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={entryKey(e)} className="border-t border-slate-200">
              <td className={`${td} sticky left-0 z-[1] bg-white whitespace-nowrap`}>
                <CustomerLink party={e.party} />
                <ThreadLink e={e} zone={zone} tid={tidOf(e.number)} />
                {/* In the first column, which a narrow window shows without scrolling the table sideways. */}
                <OptedOutBadge e={e} />
              </td>
              <td className={`${td} whitespace-nowrap`}>{formatPhone(e.number)}</td>
              <td className={`${td} min-w-48`}>
                <LastMessage e={e} />
              </td>
              <td className={`${td} whitespace-nowrap print:whitespace-normal`} title={exactUtc(msOf(e.since))}>
                <span className="font-semibold">{formatWait(e.waitedMs)}</span>
                <WaitedSince e={e} zone={zone} me={me} />
              </td>
              <td className={`${td} print:hidden`}>
                <MarkButton e={e} pending={pending} onMark={onMark} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  )
}

/** The whole thread with them on that number, opened at their last message. */
function ThreadLink({ e, zone, tid }: { e: QueueEntry; zone: NeedsReplySearch['tz']; tid: string }) {
  return (
    <Link
      to="/numbers/$number/thread"
      params={{ number: e.number }}
      search={{ tid, party: e.party, at: e.lastInbound.ordinal ?? null, tz: zone }}
      className="flex min-h-6 items-center text-xs text-blue-800 underline"
      aria-label={`Open the thread with ${formatPhone(e.party)} on ${formatPhone(e.number)}`}
    >
      Open the thread
    </Link>
  )
}

function OptedOutBadge({ e }: { e: QueueEntry }) {
  if (!e.optedOut) return null
  return (
    <span className="mt-1 block w-fit rounded border border-amber-300 bg-amber-50 px-1 text-xs font-semibold text-amber-950">
      Opted out: do not text
    </span>
  )
}

/** Their last message (opt-outs aside), how many are unanswered, and what to do when they opted out. */
function LastMessage({ e }: { e: QueueEntry }) {
  return (
    <div>
      {e.lastInbound.body ? <BodyText body={e.lastInbound.body} /> : <span className="text-slate-700 italic">(no text)</span>}
      {e.unanswered > 1 ? <span className="block text-xs text-slate-700">{e.unanswered} messages unanswered</span> : null}
      {e.optedOut ? (
        <span className="mt-1 block text-xs text-amber-950">They opted out: answer by phone or email, then Mark handled.</span>
      ) : null}
    </div>
  )
}

/** Since when they wait, and an earlier mark. */
function WaitedSince({ e, zone, me }: { e: QueueEntry; zone: NeedsReplySearch['tz']; me: string | undefined }) {
  return (
    <>
      <span className="block text-xs text-slate-700" title={exactUtc(msOf(e.since))}>
        since {formatDate(msOf(e.since), zone)}
      </span>
      {e.handled ? (
        <span className="block text-xs text-slate-700">
          handled earlier by {whoDid(e.handled.by, me)}, {formatDate(msOf(e.handled.at), zone)}
        </span>
      ) : null}
    </>
  )
}

function MarkButton({ e, pending, onMark }: { e: QueueEntry; pending: boolean; onMark: (e: QueueEntry) => void }) {
  return (
    <button
      type="button"
      className="btn whitespace-nowrap"
      disabled={pending}
      aria-label={`Mark handled: ${formatPhone(e.party)} on ${formatPhone(e.number)}`}
      onClick={() => {
        onMark(e)
      }}
    >
      Mark handled
    </button>
  )
}
