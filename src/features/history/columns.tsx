import { createColumnHelper } from '@tanstack/react-table'
import type { Message } from '../../api/history'
import { CopyText } from '../../components/copy-text'
import type { Features, SortValue } from '../../components/data-table/features'
import { BodyText, DateText, directionLabel, MediaPreview, PhoneText } from '../../components/message/message-parts'
import { StatusBadge } from '../../components/message/status-badge'
import { formatCount } from '../../lib/count'

const helper = createColumnHelper<Features, Message>()

export const HISTORY_COLUMNS = helper.columns([
  helper.accessor('position', { id: 'position', header: '#', cell: ({ row }) => <span className="tabular-nums text-slate-700">{formatCount(row.original.position)}</span> }),
  helper.accessor((m) => m.dateMs ?? 0, { id: 'date', header: 'Date', cell: ({ row }) => <DateText ms={row.original.dateMs} raw={row.original.date} /> }),
  helper.accessor((m) => m.direction ?? '', { id: 'direction', header: 'Direction', cell: ({ row }) => directionLabel(row.original.direction) }),
  helper.accessor((m) => m.phone ?? '', { id: 'phone', header: 'Other party', cell: ({ row }) => <PhoneText raw={row.original.phone} /> }),
  helper.accessor((m) => m.body ?? '', {
    id: 'body',
    header: 'Message',
    enableSorting: false,
    cell: ({ row }) => (
      <div className="flex flex-col gap-1">
        <BodyText body={row.original.body} />
        {row.original.mms ? <MediaPreview url={row.original.mediaUrl} from={row.original.phone} /> : null}
      </div>
    ),
  }),
  helper.accessor((m) => m.status.label, { id: 'status', header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> }),
  helper.display({
    id: 'ids',
    header: 'Identifiers',
    cell: ({ row }) => (
      <div className="flex flex-col gap-0.5 text-xs">
        <CopyText value={row.original.messageId} label="message id" />
        <CopyText value={row.original.systemId} label="system id" />
      </div>
    ),
  }),
])

/** What each column sorts by. */
export const SORT_VALUES: Record<string, SortValue<Message>> = {
  position: (m) => m.position,
  date: (m) => m.dateMs ?? 0,
  direction: (m) => m.direction ?? '',
  phone: (m) => m.phone ?? '',
  status: (m) => m.status.label,
}

export const HISTORY_WIDTHS: Record<string, string> = { position: '4.5rem', date: '10rem', direction: '6.5rem', phone: '9.5rem', body: 'auto', status: '8rem', ids: '17rem' }

export const EXPORT_HEADER = ['position', 'GMTdate', 'direction', 'phone', 'body', 'mms', 'mms_url', 'status', 'message_id', 'system_id', 'tid']

/** Raw values, as the API sent them: exports are data, not display. */
export function messageRow(m: Message): unknown[] {
  return [m.position, m.date ?? '', m.direction ?? '', m.phone ?? '', m.body ?? '', m.mms ? 'yes' : 'no', m.mediaUrl ?? '', m.status.full, m.messageId ?? '', m.systemId ?? '', m.tid ?? '']
}
