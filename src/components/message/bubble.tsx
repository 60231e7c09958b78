import type { Message } from '../../api/history'
import { Link } from '@tanstack/react-router'
import { BodyText, DateText, MediaPreview } from './message-parts'
import { StatusBadge } from './status-badge'

/** One message in a chat-style thread: sent on the right, received on the left, direction in words too. */
export function MessageBubble({ m, number, ordinal, tid }: { m: Message; number: string; ordinal: number | null; tid: string }) {
  const dir = (m.direction ?? '').toLowerCase()
  const out = dir === 'outbound'
  return (
    <div
      className={`max-w-[80%] min-w-40 rounded-lg border p-2 text-sm break-inside-avoid ${out ? 'self-end border-blue-200 bg-blue-50' : 'self-start border-slate-200 bg-slate-50'}`}
    >
      <p className="text-xs font-semibold text-slate-700">
        {out ? 'Sent' : dir === 'inbound' ? 'Received' : (m.direction ?? 'Unknown direction')}
      </p>
      <div data-col="body">
        <BodyText body={m.body} />
      </div>
      {m.mms ? <MediaPreview m={m} number={number} ordinal={ordinal} inline /> : null}
      <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-700">
        <DateText ms={m.dateMs} raw={m.date} />
        <StatusBadge status={m.status} />
        {ordinal !== null ? (
          <Link
            to="/numbers/$number/messages/$ordinal"
            params={{ number, ordinal }}
            search={{ tid }}
            // Inline padding: a target 24 px tall (WCAG 2.5.8) in the line of the date and status.
            className="py-1 text-blue-800 underline print:hidden"
          >
            Details<span className="sr-only"> of this message</span>
          </Link>
        ) : null}
      </div>
    </div>
  )
}
