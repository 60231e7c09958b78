import { segmentInfo } from '../../../contract/desk/segments'
import { CustomerLink } from '../../components/customer-link'
import { useQuery } from '@tanstack/react-query'
import { useMemo, useState, type ReactNode } from 'react'
import type { Message } from '../../api/history'
import { historyQuery } from '../../api/history'
import { messageQuery, useIndexStatus } from '../../api/index-api'
import { ErrorAlert } from '../../components/alert'
import { CopyText } from '../../components/copy-text'
import { TableSkeleton } from '../../components/empty-state'
import { HistoryDisplayContext, type HistoryDisplay } from '../../components/message/display-context'
import { MediaViewer } from '../../components/message/media-viewer'
import { BodyText, directionLabel, MediaPreview } from '../../components/message/message-parts'
import { StatusBadge } from '../../components/message/status-badge'
import { formatCount } from '../../lib/count'
import { formatDate, isoUtc, zoneLabel } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import type { MessageSearch } from '../../lib/route-params'
import { Link } from '@tanstack/react-router'
import { useSetParams } from '../../lib/navigation'
import { statusText } from '../../lib/status'

const HISTORY_PAGE_SIZE = 50

/**
 * One message, by its ordinal (1 = the number's oldest message; stable as new messages arrive).
 * From the index when it holds the number; otherwise from the upstream: the history's total
 * turns the ordinal into today's record position, and that one record is fetched.
 */
export function MessagePage({ number, ordinal, search }: { number: string; ordinal: number; search: MessageSearch }) {
  const setParams = useSetParams('/numbers/$number/messages/$ordinal')
  const index = useIndexStatus()
  const facts = index.byNumber.get(number)
  // The index answers only when it holds the whole history; otherwise the upstream does.
  const indexed = index.available && !!facts && facts.upstreamTotal !== null && facts.indexed > 0 && facts.indexed >= facts.upstreamTotal
  const { tz: zone } = search
  const fromIndex = useQuery({ ...messageQuery(number, ordinal), enabled: indexed })
  const tid = search.tid || fromIndex.data?.message.tid || index.byNumber.get(number)?.tid || ''
  const envelope = useQuery({ ...historyQuery(number, tid, 1, 1), enabled: !indexed && !index.loading && tid !== '' })
  const upstreamTotal = envelope.data?.total ?? null
  const position = upstreamTotal !== null ? upstreamTotal - ordinal + 1 : null
  const record = useQuery({
    ...historyQuery(number, tid, position ?? 1, position ?? 1),
    enabled: !indexed && position !== null && position >= 1,
  })
  const [media, setMedia] = useState<{ url: string; alt: string; opener: HTMLElement } | null>(null)
  const display = useMemo<HistoryDisplay>(() => ({ zone, openMedia: (url, alt, opener) => setMedia({ url, alt, opener }) }), [zone])

  const m: Message | undefined = indexed ? fromIndex.data?.message : record.data?.messages[0]
  const total = indexed ? (fromIndex.data?.total ?? null) : upstreamTotal
  const error = indexed ? fromIndex.error : (envelope.error ?? record.error)
  const pos = indexed ? (fromIndex.data?.message.position ?? null) : position
  const outOfRange = !indexed && position !== null && position < 1

  return (
    <HistoryDisplayContext.Provider value={display}>
      <section aria-labelledby="message-heading">
        <p className="text-sm print:hidden">
          <Link to="/numbers/$number" params={{ number }} search={{ tid }} className="text-blue-800 underline">
            ← History of {formatPhone(number)}
          </Link>
        </p>
        {/* One numbering on screen, the History page's: records count from the newest (1). The
            address names the message from the oldest instead, which new messages do not move. */}
        <h1 id="message-heading" className="mt-1 text-xl font-semibold">
          {pos !== null ? `Record ${formatCount(pos)} of ${formatPhone(number)}` : `A message of ${formatPhone(number)}`}
        </h1>
        <p className="text-sm text-slate-700">
          Records count from the newest (1), as on the History page; this page&apos;s address names the message as number{' '}
          {formatCount(ordinal)} from the oldest, which stays the same as new messages arrive. Dates in {zoneLabel(zone)}.{' '}
          <button
            type="button"
            className="btn print:hidden"
            aria-pressed={zone === 'utc'}
            onClick={() => setParams({ tz: zone === 'utc' ? null : 'utc' }, { replace: true })}
          >
            Switch to {zone === 'utc' ? 'local time' : 'UTC'}
          </button>
        </p>
        {!indexed && !index.loading && tid === '' ? (
          <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900">
            <p className="font-semibold">This link is missing the number&apos;s tid, and the message index does not hold this number.</p>
            <p className="text-sm">
              Open the message from the <Link to="/">numbers list</Link> to get a complete link.
            </p>
          </div>
        ) : null}
        {outOfRange ? (
          <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900">
            <p className="font-semibold">This number has no message {formatCount(ordinal)} (counted from the oldest)</p>
            <p className="text-sm">It holds {formatCount(upstreamTotal ?? 0)} messages. Check the link, or open the history.</p>
          </div>
        ) : null}
        {error ? (
          <ErrorAlert
            error={error}
            onRetry={() => void (indexed ? fromIndex.refetch() : record.refetch())}
            where={`message ${formatCount(ordinal)}`}
          />
        ) : null}
        {!m && !error && !outOfRange && tid !== '' ? <TableSkeleton label="Loading the message" rows={4} /> : null}
        {m ? (
          <dl className="mt-3 grid grid-cols-1 gap-x-6 gap-y-2 rounded border border-slate-200 bg-white p-4 text-sm sm:grid-cols-[12rem_1fr]">
            <Field label="Date">
              {m.dateMs !== null ? (
                <>
                  {formatDate(m.dateMs, zone)} <span className="block font-mono text-xs text-slate-700">{isoUtc(m.dateMs)} (UTC)</span>
                </>
              ) : (
                (m.date ?? '—')
              )}
              {m.date && !indexed ? <span className="block font-mono text-xs text-slate-700">As sent: {m.date}</span> : null}
            </Field>
            <Field label="Direction">{directionLabel(m.direction)}</Field>
            <Field label="Other party">
              {m.phone ? (
                <>
                  {formatPhone(m.phone)} <span className="font-mono text-xs">{m.phone}</span>{' '}
                  {index.available ? (
                    <Link
                      to="/numbers/$number/thread"
                      params={{ number }}
                      search={{ tid, party: m.phone, tz: zone, at: ordinal }}
                      className="text-blue-800 underline print:hidden"
                    >
                      Whole thread with {formatPhone(m.phone)}
                    </Link>
                  ) : null}{' '}
                  <CustomerLink party={m.phone}>Everything about this customer</CustomerLink>
                </>
              ) : (
                '—'
              )}
            </Field>
            <Field label="Message">
              <BodyText body={m.body} />
            </Field>
            <Field label="Encoding">
              <EncodingText body={m.body} />
            </Field>
            <Field label="Status">
              <StatusBadge status={m.status} />{' '}
              <span>
                {statusText(m.status)}
                {m.status.code !== null ? ` (code ${m.status.code})` : ''}
              </span>
              <span className="block font-mono text-xs break-all text-slate-700">Raw: {m.status.full || '—'}</span>
            </Field>
            <Field label="Media">
              {m.mms ? (
                <>
                  <MediaPreview url={m.mediaUrl} from={m.phone} inline />
                  <span className="block font-mono text-xs break-all">{m.mediaUrl ?? '—'}</span>
                </>
              ) : (
                'None (text message)'
              )}
            </Field>
            <Field label="Place in the history">
              {pos !== null && total !== null ? (
                <>
                  Record {formatCount(pos)} of {formatCount(total)} (newest first), page {formatCount(Math.ceil(pos / HISTORY_PAGE_SIZE))}{' '}
                  of {HISTORY_PAGE_SIZE} rows.{' '}
                  <Link
                    to="/numbers/$number"
                    params={{ number }}
                    search={{ tid, page: Math.ceil(pos / HISTORY_PAGE_SIZE), mark: pos, tz: zone }}
                    className="text-blue-800 underline"
                  >
                    Show it in the history
                  </Link>
                </>
              ) : (
                '—'
              )}
            </Field>
            <Field label="Message id">
              <CopyText value={m.messageId} label="message id" />
            </Field>
            <Field label="System id">
              <CopyText value={m.systemId} label="system id" />
            </Field>
            <Field label="tid">
              <span className="font-mono text-xs">{m.tid ?? tid}</span>
            </Field>
            <Field label="Number">
              {formatPhone(number)} <span className="font-mono text-xs">{number}</span>
            </Field>
          </dl>
        ) : null}
        <MediaViewer media={media} onClose={() => setMedia(null)} />
      </section>
    </HistoryDisplayContext.Provider>
  )
}

/** GSM-7 or UCS-2 and the SMS segments the text takes (3GPP TS 23.038), naming what forced UCS-2. */
function EncodingText({ body }: { body: string | null }) {
  const info = segmentInfo(body)
  if (!body) return <>No text (0 SMS segments)</>
  return (
    <>
      {info.encoding}, {info.segments} {info.segments === 1 ? 'segment' : 'segments'} ({info.units}{' '}
      {info.encoding === 'GSM-7' ? 'septets' : 'UTF-16 units'}, {info.perSegment} a segment)
      {info.ucs2Chars.length > 0 ? (
        <span className="block text-xs text-slate-700">
          UCS-2 because of:{' '}
          {info.ucs2Chars.map((c, i) => (
            <span key={c}>
              {i > 0 ? ', ' : ''}
              <span className="rounded border border-slate-300 px-1 font-mono">{c}</span>{' '}
              <span className="font-mono">U+{c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}</span>
            </span>
          ))}
        </span>
      ) : null}
    </>
  )
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="font-semibold text-slate-700">{label}</dt>
      <dd className="break-words">{children}</dd>
    </>
  )
}
