import { useQueries } from '@tanstack/react-query'
import { useMemo, useRef, type KeyboardEvent } from 'react'
import { historyQuery, type Message } from '../../api/history'
import type { NumberIndexStatus } from '../../api/index-api'
import { ErrorAlert } from '../../components/alert'
import { CustomerLink } from '../../components/customer-link'
import { partyKey } from '../../../contract/desk/messages'
import { formatDay } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { pageCount, pageRange, rangeText } from '../../lib/range'
import { useHistoryDisplay } from '../../components/message/display-context'
import { BodyText, DateText, MediaPreview } from '../../components/message/message-parts'
import { StatusBadge } from '../../components/message/status-badge'
import { IndexedConversations } from './indexed-conversations'

interface Party {
  /** The party as the first of its loaded messages writes it (shown, and the URL's `party`). */
  phone: string
  messages: Message[]
}

/** One group per customer: a number written with and without its leading 1 is one party (contract/desk partyKey), as with the index on. */
const groupKey = (phone: string) => partyKey(phone) || phone

export function groupByParty(messages: Message[]): Party[] {
  const map = new Map<string, Party>()
  for (const m of messages) {
    const phone = m.phone ?? ''
    const key = groupKey(phone)
    const party = map.get(key)
    if (party) party.messages.push(m)
    else map.set(key, { phone, messages: [m] })
  }
  return [...map.values()].sort((a, b) => b.messages.length - a.messages.length || a.phone.localeCompare(b.phone))
}

type ConversationProps = {
  number: string
  tid: string
  page: number
  size: number
  total: number
  more: number
  party: string | null
  onMore: (n: number) => void
  onParty: (phone: string) => void
}

/**
 * The Conversations tab. With the message index on it is every thread of the whole history
 * (indexed-conversations.tsx); without it, the loaded records grouped by party.
 */
export function ConversationView({
  indexAvailable,
  facts,
  indexNumber,
  ...props
}: ConversationProps & {
  indexAvailable: boolean
  facts: NumberIndexStatus | undefined
  /** The index's key of this history: the number, or its further line's (contract/lines.ts). */
  indexNumber?: string
}) {
  if (indexAvailable)
    return (
      <IndexedConversations
        number={indexNumber ?? props.number}
        tid={props.tid}
        party={props.party}
        facts={facts}
        upstreamTotal={props.total}
        onParty={props.onParty}
      />
    )
  return <LoadedConversations {...props} />
}

/**
 * The loaded messages grouped by the other party: a listbox of parties, and a chat-style
 * thread. "Load older" appends the next record range; nothing already shown is replaced.
 */
function LoadedConversations({ number, tid, page, size, total, more, party, onMore, onParty }: ConversationProps) {
  const { zone } = useHistoryDisplay()
  const pages = pageCount(total, size)
  const lastLoaded = Math.min(page + more, pages)
  const results = useQueries({
    queries: Array.from({ length: lastLoaded - page + 1 }, (_, i) => {
      const r = pageRange(page + i, size, total)
      return historyQuery(number, tid, r.start, r.end)
    }),
  })
  const loaded = useMemo(() => results.flatMap((r) => r.data?.messages ?? []), [results])
  const parties = useMemo(() => groupByParty(loaded), [loaded])
  const selected = parties.find((p) => party !== null && groupKey(p.phone) === groupKey(party)) ?? parties[0]
  const pending = results.some((r) => r.isFetching)
  // The first range is the page's own query: its errors are the page's alert. Only older ranges report here.
  const failed = results.slice(1).find((r) => r.isError)
  const firstStart = pageRange(page, size, total).start
  const lastEnd = pageRange(lastLoaded, size, total).end
  const listRef = useRef<HTMLUListElement>(null)

  const onKey = (e: KeyboardEvent) => {
    if (!selected) return
    const i = parties.indexOf(selected)
    let next = -1
    if (e.key === 'ArrowDown') next = Math.min(i + 1, parties.length - 1)
    else if (e.key === 'ArrowUp') next = Math.max(i - 1, 0)
    else if (e.key === 'Home') next = 0
    else if (e.key === 'End') next = parties.length - 1
    if (next < 0) return
    e.preventDefault()
    const p = parties[next]
    if (p) onParty(p.phone)
  }

  // Oldest first in a thread, as chat apps read. Higher record number = older (newest first upstream).
  const thread = useMemo(() => (selected ? [...selected.messages].sort((a, b) => b.position - a.position) : []), [selected])

  return (
    <div className="grid gap-3 md:grid-cols-[16rem_1fr]">
      <div>
        <h2 id="parties-heading" className="text-sm font-semibold">
          Conversations in records {rangeText(firstStart, lastEnd, total)}
        </h2>
        <ul
          ref={listRef}
          role="listbox"
          aria-labelledby="parties-heading"
          tabIndex={0}
          aria-activedescendant={selected ? `party-${selected.phone || 'none'}` : undefined}
          onKeyDown={onKey}
          className="relative mt-1 max-h-[60vh] overflow-auto rounded border border-slate-200 bg-white"
        >
          {parties.map((p) => (
            <li
              key={p.phone}
              id={`party-${p.phone || 'none'}`}
              role="option"
              aria-selected={p === selected}
              onClick={() => {
                onParty(p.phone)
              }}
              className={`flex cursor-pointer justify-between px-2 py-1.5 text-sm ${p === selected ? 'bg-blue-800 text-white' : 'hover:bg-slate-100'}`}
            >
              <span>{p.phone ? formatPhone(p.phone) : 'Unknown party'}</span>
              <span className="tabular-nums">
                {p.messages.length} <span className="sr-only">messages</span>
              </span>
            </li>
          ))}
        </ul>
      </div>
      <section
        aria-label={selected ? `Conversation with ${formatPhone(selected.phone)}` : 'Conversation'}
        className="rounded border border-slate-200 bg-white p-3"
      >
        {/* As with the index on: the listbox's options cannot hold links, so the chosen party's customer page is here. */}
        {selected && /\d/.test(selected.phone) ? (
          <p className="mb-2 text-sm">
            <CustomerLink party={selected.phone}>Everything about {formatPhone(selected.phone)}, across every number</CustomerLink>
          </p>
        ) : null}
        <p className="mb-2 text-sm text-slate-700">
          This view covers the loaded records only: whole threads need the message index, which is off on this server.
        </p>
        {lastLoaded < pages ? (
          <button
            type="button"
            className="btn mb-2"
            onClick={() => {
              onMore(more + 1)
            }}
            disabled={pending}
          >
            {pending ? 'Loading older…' : 'Load older'}
          </button>
        ) : (
          <p className="mb-2 text-xs text-slate-700">Start of the history.</p>
        )}
        {failed ? (
          <ErrorAlert
            error={failed.error}
            onRetry={() => void failed.refetch()}
            retrying={failed.isFetching}
            keptData={loaded.length > 0}
          />
        ) : null}
        <ol className="flex flex-col gap-2" aria-label="Messages, oldest first">
          {thread.map((m, i) => {
            const prev = thread[i - 1]
            const day = m.dateMs !== null ? formatDay(m.dateMs, zone) : null
            const newDay = day !== null && (prev === undefined || prev.dateMs === null || formatDay(prev.dateMs, zone) !== day)
            const out = (m.direction ?? '').toLowerCase() === 'outbound'
            return (
              <li key={m.key} className="flex flex-col">
                {newDay ? <p className="my-2 self-center rounded bg-slate-100 px-2 text-xs text-slate-700">{day}</p> : null}
                <div
                  className={`max-w-[80%] rounded-lg border p-2 text-sm ${out ? 'self-end border-blue-200 bg-blue-50' : 'self-start border-slate-200 bg-slate-50'}`}
                >
                  <p className="sr-only">
                    {out ? 'Sent' : (m.direction ?? '').toLowerCase() === 'inbound' ? 'Received' : (m.direction ?? 'Unknown direction')}
                  </p>
                  <BodyText body={m.body} />
                  {m.mms ? <MediaPreview m={m} inline /> : null}
                  <div className="mt-1 flex items-center gap-2 text-xs text-slate-700">
                    <DateText ms={m.dateMs} raw={m.date} />
                    <StatusBadge status={m.status} />
                  </div>
                </div>
              </li>
            )
          })}
        </ol>
      </section>
    </div>
  )
}
