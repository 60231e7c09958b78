import { CustomerIconLink } from '../../components/customer-link'
import { createColumnHelper } from '@tanstack/react-table'
import type { IndexedRow } from '../../api/index-api'
import type { Features } from '../../components/data-table/features'
import { useHistoryDisplay } from '../../components/message/display-context'
import { DateText, directionLabel, MessageCell, PhoneText } from '../../components/message/message-parts'
import { StatusBadge } from '../../components/message/status-badge'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'
import { Link } from '@tanstack/react-router'

const helper = createColumnHelper<Features, IndexedRow>()

/** Default history page size: a result links to the page that holds it at this size. */
export const HISTORY_PAGE_SIZE = 50

export const SEARCH_COLUMNS = helper.columns([
  helper.accessor('number', {
    id: 'number',
    header: 'Number',
    // On a phone's card, said with its label: two bare phone numbers side by side do not say which is ours.
    meta: { card: 'field', width: '9.5rem' },
    enableSorting: false,
    cell: ({ row }) => <PhoneText raw={row.original.number} />,
  }),
  helper.accessor((m) => m.dateMs ?? 0, {
    id: 'date',
    header: 'Date',
    meta: { card: 'title', width: '12.5rem' },
    enableSorting: false,
    cell: ({ row }) => <DateText ms={row.original.dateMs} raw={row.original.date} />,
  }),
  helper.accessor((m) => m.phone ?? '', {
    id: 'phone',
    header: 'Other party',
    meta: { card: 'field', width: '9.5rem' },
    enableSorting: false,
    cell: ({ row }) => (
      <>
        <PhoneText raw={row.original.phone} />
        <CustomerIconLink party={row.original.phone} />
      </>
    ),
  }),
  helper.accessor((m) => m.direction ?? '', {
    id: 'direction',
    header: 'Direction',
    meta: { card: 'meta', width: '6.5rem' },
    enableSorting: false,
    cell: ({ row }) => directionLabel(row.original.direction),
  }),
  helper.accessor((m) => m.body ?? '', {
    id: 'body',
    header: 'Message',
    meta: { card: 'body', width: 'auto', minWidth: '16rem' },
    enableSorting: false,
    cell: ({ row }) => <MessageCell m={row.original} />,
  }),
  helper.accessor((m) => m.status.label, {
    id: 'status',
    header: 'Status',
    meta: { card: 'meta', width: '8rem' },
    enableSorting: false,
    cell: ({ row }) => <StatusBadge status={row.original.status} />,
  }),
  helper.display({
    id: 'links',
    header: 'Open',
    meta: { card: 'field', width: '8.5rem' },
    cell: ({ row }) => <ResultLinks m={row.original} />,
  }),
])

function ResultLinks({ m }: { m: IndexedRow }) {
  const { zone } = useHistoryDisplay()
  const tz = zone
  const tid = m.tid ?? ''
  const page = Math.ceil(m.position / HISTORY_PAGE_SIZE)
  return (
    <ul className="flex flex-col text-xs">
      <li>
        <Link
          to="/numbers/$number"
          params={{ number: m.number }}
          search={{ tid, page, mark: m.position, o: m.ordinal, tz }}
          className="inline-block min-h-6 py-1 text-blue-800 underline"
          aria-label={`In history: record ${formatCount(m.position)} of ${formatPhone(m.number)}`}
        >
          In history
        </Link>
      </li>
      {m.phone ? (
        <li>
          <Link
            to="/numbers/$number/thread"
            params={{ number: m.number }}
            search={{ tid, party: m.phone, tz, at: m.ordinal }}
            className="inline-block min-h-6 py-1 text-blue-800 underline"
            aria-label={`Thread with ${formatPhone(m.phone)}`}
          >
            Thread
          </Link>
        </li>
      ) : null}
      <li>
        <Link
          to="/numbers/$number/messages/$ordinal"
          params={{ number: m.number, ordinal: m.ordinal }}
          search={{ tid, tz }}
          className="inline-block min-h-6 py-1 text-blue-800 underline"
          aria-label={`Details of record ${formatCount(m.position)}`}
        >
          Details
        </Link>
      </li>
    </ul>
  )
}
