import { segmentInfo } from '../../../contract/desk/segments'
import { Link } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import type { Message } from '../../api/history'
import { CopyText } from '../../components/copy-text'
import { CustomerLink } from '../../components/customer-link'
import { BodyText, directionLabel, MediaPreview } from '../../components/message/message-parts'
import { StatusBadge } from '../../components/message/status-badge'
import { formatCount } from '../../lib/count'
import { formatDate, isoUtc, type Zone } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { statusText } from '../../lib/status'
import { PLAIN_FIELDS } from '../../../contract/message-fields'
import { codePointsName, hasBidiControls, shownCharacter } from '../../lib/code-points'

const HISTORY_PAGE_SIZE = 50

/** Every field of one message, raw values beside the readable ones, with links to its thread and its place in the history. */
export function MessageDetails({
  m,
  number,
  ordinal,
  tid,
  zone,
  pos,
  total,
  indexed,
  threadLinks,
}: {
  m: Message
  number: string
  ordinal: number
  tid: string
  zone: Zone
  pos: number | null
  total: number | null
  indexed: boolean
  threadLinks: boolean
}) {
  return (
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
            {threadLinks ? (
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
        <BodyText body={m.body} printWhole />
        {hasBidiControls(m.body) ? (
          <p className="mt-1 text-xs text-amber-950">
            This text holds bidirectional control characters, which can make it read differently from the characters it holds (a name ending
            “exe.png” may be “gnp.exe”).
          </p>
        ) : null}
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
            <MediaPreview m={m} number={number} ordinal={ordinal} inline />
            <span className="block font-mono text-xs break-all">{m.mediaUrl ?? '—'}</span>
          </>
        ) : (
          'None (text message)'
        )}
      </Field>
      <Field label="Place in the history">
        {pos !== null && total !== null ? (
          <>
            Record {formatCount(pos)} of {formatCount(total)} (newest first), page {formatCount(Math.ceil(pos / HISTORY_PAGE_SIZE))} of{' '}
            {HISTORY_PAGE_SIZE} rows.{' '}
            <Link
              to="/numbers/$number"
              params={{ number }}
              search={{ tid, page: Math.ceil(pos / HISTORY_PAGE_SIZE), mark: pos, o: ordinal, tz: zone }}
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
      {/* A plain field the pages do not show their own way (contract/message-fields.ts): its text. */}
      {PLAIN_FIELDS.filter((f) => (f.shown as string) === 'column').map((f) => (
        <Field key={f.key} label={f.label}>
          <span className="break-all">{m[f.key] ?? '—'}</span>
        </Field>
      ))}
      <Field label="tid">
        <span className="font-mono text-xs">{m.tid ?? tid}</span>
      </Field>
      <Field label="Number">
        {formatPhone(number)} <span className="font-mono text-xs">{number}</span>
      </Field>
    </dl>
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
              {/* Isolated, and named rather than drawn when it is only format characters (a bidi override turned the line around). */}
              <bdi className="rounded border border-slate-300 px-1 font-mono">{shownCharacter(c)}</bdi>{' '}
              <span className="font-mono">{codePointsName(c)}</span>
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
