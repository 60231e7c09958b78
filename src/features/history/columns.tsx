import { createColumnHelper } from '@tanstack/react-table'
import type { Message } from '../../api/history'
import { CopyText } from '../../components/copy-text'
import { sortableIds, type Features } from '../../components/data-table/features'
import { CustomerIconLink } from '../../components/customer-link'
import { DateText, directionLabel, MessageCell, PhoneText } from '../../components/message/message-parts'
import { StatusBadge } from '../../components/message/status-badge'
import { useHistoryDisplay, type MessageLink, type ThreadLink } from '../../components/message/display-context'
import { PlainLink } from '../../components/plain-link'
import { linkSearch, pathHref } from '../../lib/link-href'
import { messageSearch, threadSearch } from '../../lib/route-params'
import { PAGES } from '../../../contract/pages'
import { formatCount } from '../../lib/count'
import { PLAIN_FIELDS } from '../../../contract/message-fields'

const helper = createColumnHelper<Features, Message>()

/** A row's thread link's address, as the router writes it (src/app/row-links.test.tsx). */
export const threadHref = (l: ThreadLink): string =>
  `${pathHref(PAGES.thread.path, { number: l.number })}${linkSearch(threadSearch, l.search)}`
/** A row's message link's address, as the router writes it (src/app/row-links.test.tsx). */
export const messageHref = (l: MessageLink): string =>
  `${pathHref(PAGES.message.path, { number: l.number, ordinal: l.ordinal })}${linkSearch(messageSearch, l.search)}`

// What a column shows is also what it sorts by.
const dateValue = (m: Message) => m.dateMs ?? 0
const directionValue = (m: Message) => m.direction ?? ''
const phoneValue = (m: Message) => m.phone ?? ''
const statusValue = (m: Message) => m.status.label

export const HISTORY_COLUMNS = helper.columns([
  helper.accessor('position', {
    id: 'position',
    header: '#',
    sortDescFirst: true,
    meta: { card: 'meta', cardLabel: 'Record', width: '4.5rem', sortValue: (m) => m.position },
    cell: ({ row }) => <PositionCell m={row.original} />,
  }),
  helper.accessor(dateValue, {
    id: 'date',
    header: 'Date',
    sortDescFirst: true,
    meta: { card: 'title', width: '12.5rem', sortValue: dateValue },
    cell: ({ row }) => <DateText ms={row.original.dateMs} raw={row.original.date} />,
  }),
  helper.accessor(directionValue, {
    id: 'direction',
    header: 'Direction',
    meta: { card: 'meta', width: '6.5rem', sortValue: directionValue },
    cell: ({ row }) => directionLabel(row.original.direction),
  }),
  helper.accessor(phoneValue, {
    id: 'phone',
    header: 'Other party',
    meta: { card: 'meta', width: '9.5rem', sortValue: phoneValue },
    cell: ({ row }) => <PartyCell m={row.original} />,
  }),
  helper.accessor((m) => m.body ?? '', {
    id: 'body',
    header: 'Message',
    meta: { card: 'body', width: 'auto', minWidth: '16rem' },
    enableSorting: false,
    cell: ({ row }) => <MessageCell m={row.original} />,
  }),
  helper.accessor(statusValue, {
    id: 'status',
    header: 'Status',
    meta: { card: 'meta', width: '8rem', sortValue: statusValue },
    cell: ({ row }) => <StatusBadge status={row.original.status} />,
  }),
  helper.display({
    id: 'ids',
    header: 'Identifiers',
    meta: { card: 'details', width: '17rem' },
    cell: ({ row }) => (
      <div className="flex flex-col gap-0.5 text-xs">
        <CopyText value={row.original.messageId} label="message id" />
        <CopyText value={row.original.systemId} label="system id" />
      </div>
    ),
  }),
  // A plain field the page does not show its own way (contract/message-fields.ts): a column of its text.
  ...PLAIN_FIELDS.filter((f) => (f.shown as string) === 'column').map((f) => {
    const value = (m: Message) => m[f.key] ?? ''
    return helper.accessor(value, {
      id: f.key,
      header: f.label,
      meta: { card: 'meta', width: '10rem', sortValue: value },
      cell: ({ row }) => <span className="break-all">{row.original[f.key] ?? '—'}</span>,
    })
  }),
])

export const HISTORY_SORTABLE = sortableIds(HISTORY_COLUMNS)

/**
 * Export columns: the date twice, unambiguous (ISO 8601 UTC with the Z) and in the zone shown on
 * screen (with its offset, and the zone named in the header), then the raw values as the API sent
 * them: exports are data, not display.
 */
export { exportHeader, messageRow, type ExportScope } from '../../lib/message-export'

/** The record number, linking to the message's own page; the marked record says so in words. */
function PositionCell({ m }: { m: Message }) {
  const { messageLink, marked } = useHistoryDisplay()
  const link = messageLink?.(m) ?? null
  const text = formatCount(m.position)
  const isMarked = marked === m.position
  return (
    <span className="tabular-nums text-slate-700" data-marked={isMarked ? 'true' : undefined}>
      {link ? (
        <PlainLink
          href={messageHref(link)}
          to={{ to: '/numbers/$number/messages/$ordinal', params: { number: link.number, ordinal: link.ordinal }, search: link.search }}
          // A 24 px target at least (WCAG 2.5.8), "1" included, with the layout of the bare number: inline padding
          // widens what a finger hits, and the negative margin gives the width back.
          className="-mx-2 px-2 py-1 text-blue-800 underline"
          aria-label={`Record ${text}: details`}
        >
          {text}
        </PlainLink>
      ) : (
        text
      )}
      {isMarked ? <span className="ml-1 block rounded bg-amber-200 px-1 text-xs font-semibold text-amber-950">Found</span> : null}
    </span>
  )
}

/** The other party, linking to the whole thread with them when the index can show it. */
function PartyCell({ m }: { m: Message }) {
  const { threadLink } = useHistoryDisplay()
  const link = m.phone ? (threadLink?.(m) ?? null) : null
  if (!link)
    return (
      <>
        <PhoneText raw={m.phone} />
        <CustomerIconLink party={m.phone} />
      </>
    )
  return (
    <>
      <PlainLink
        href={threadHref(link)}
        to={{ to: '/numbers/$number/thread', params: { number: link.number }, search: link.search }}
        className="text-blue-800 underline"
        title="Open the whole thread"
      >
        <PhoneText raw={m.phone} />
      </PlainLink>
      <CustomerIconLink party={m.phone} />
    </>
  )
}
