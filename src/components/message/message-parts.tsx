import { useState } from 'react'
import { mediaSrc } from '../../api/media'
import { exactUtc, formatDate } from '../../lib/dates'
import { lineParts } from '../../../contract/lines'
import { formatPhone } from '../../lib/phone'
import { fileNameOf, mediaKind, safeHttpUrl } from '../../lib/url-safety'
import { useHistoryDisplay } from './display-context'
import { Highlighted } from './highlight'
import { useShownWhenSettled } from './use-shown-when-settled'
import { formatCount } from '../../lib/count'

export const DASH = '—'

export function DateText({ ms, raw }: { ms: number | null; raw: string | null }) {
  const { zone } = useHistoryDisplay()
  if (ms === null) return <span>{raw || DASH}</span>
  return (
    <time dateTime={new Date(ms).toISOString()} title={exactUtc(ms)} className="whitespace-nowrap">
      {formatDate(ms, zone)}
    </time>
  )
}

export function directionLabel(d: string | null): string {
  if (!d) return DASH
  if (d.toLowerCase() === 'outbound') return 'Outbound'
  if (d.toLowerCase() === 'inbound') return 'Inbound'
  return d
}

export function PhoneText({ raw }: { raw: string | null }) {
  // A number's further line (contract/lines.ts) may wrap before its place, never within the number.
  const line = raw?.includes('~') ? lineParts(raw) : null
  if (line && line.place > 1)
    return (
      <span>
        <span className="whitespace-nowrap">{formatPhone(line.number)}</span> <span className="whitespace-nowrap">· line {line.place}</span>
      </span>
    )
  return <span className="whitespace-nowrap">{formatPhone(raw)}</span>
}

const CLAMP_CHARS = 280

/**
 * A stranger's text, rendered as text. `dir="auto"` and <bdi> keep right-to-left text and
 * bidi-override characters from reordering the rest of the row; long bodies are clamped.
 */
/**
 * The most of one body a list prints (a history page, a thread, search results): a stranger's
 * message of a million characters printed a 24-message page on 198 sheets. The message's own
 * page prints it whole (`printWhole`).
 */
export const PRINT_MAX_CHARS = 5_000

export function BodyText({ body, printWhole = false }: { body: string | null; printWhole?: boolean }) {
  const [open, setOpen] = useState(false)
  const { highlight } = useHistoryDisplay()
  if (body === null) return <span>{DASH}</span>
  if (body === '') return <span className="text-slate-600">(empty message)</span>
  const lines = body.split('\n').length
  const long = body.length > CLAMP_CHARS || lines > 6
  const shown = long && !open ? `${body.slice(0, CLAMP_CHARS).split('\n').slice(0, 6).join('\n')}…` : body
  const cut = !printWhole && body.length > PRINT_MAX_CHARS
  // Not through the middle of a character written as two UTF-16 units (an emoji).
  const end = cut && /[\uD800-\uDBFF]/.test(body[PRINT_MAX_CHARS - 1] ?? '') ? PRINT_MAX_CHARS - 1 : PRINT_MAX_CHARS
  const printed = cut ? `${body.slice(0, end)}…` : body
  // Paper gets its own copy when the screen's differs: folded, or past the print cap.
  const ownPrint = (long && !open) || cut
  return (
    <div>
      <p
        dir="auto"
        className={`whitespace-pre-wrap [overflow-wrap:anywhere] ${open ? 'max-h-96 overflow-auto print:max-h-none print:overflow-visible' : ''}`}
      >
        <bdi className={ownPrint ? 'print:hidden' : undefined}>{highlight ? <Highlighted text={shown} needle={highlight} /> : shown}</bdi>
        {/* A printed transcript holds every message whole, whatever is folded on screen, up to PRINT_MAX_CHARS. */}
        {ownPrint ? <bdi className="hidden print:inline">{printed}</bdi> : null}
      </p>
      {cut ? (
        <p className="hidden text-xs print:block">
          ({formatCount(body.length - end)} more characters not printed: the message&apos;s own page prints it whole.)
        </p>
      ) : null}
      {long ? (
        <button
          type="button"
          className="mt-0.5 text-xs text-blue-800 underline print:hidden"
          aria-expanded={open}
          onClick={() => {
            setOpen((o) => !o)
          }}
        >
          {open ? 'Show less' : `Show more (${formatCount(body.length)} characters)`}
        </button>
      ) : null}
    </div>
  )
}

const KIND_LABEL = { video: 'Video', vcard: 'Contact card (vCard)', pdf: 'PDF document', audio: 'Audio', file: 'File' } as const

/** What a media preview needs of its message: the address to show and check, and what names the message to the server. */
export interface MediaMessage {
  mediaUrl: string | null
  phone: string | null
  systemId: string | null
  messageId: string | null
}

/**
 * MMS media. Only http(s) URLs pass (safeHttpUrl); anything else is shown as inert text. What
 * passes is loaded through the server, which is asked by message (mediaSrc), never from its own
 * host. Images are thumbnails, asked for once their row has settled in view, that open the viewer;
 * other media are file links.
 */
export function MediaPreview({
  m,
  number,
  ordinal = null,
  inline = false,
}: {
  m: MediaMessage
  /** The account number of the message, when the page shows several (else the page's). */
  number?: string
  /** The message's place in the index, when it came from there. */
  ordinal?: number | null
  inline?: boolean
}) {
  const { openMedia, number: pageNumber } = useHistoryDisplay()
  const [failed, setFailed] = useState(false)
  const [settleRef, shown] = useShownWhenSettled()
  const { mediaUrl: url, phone: from } = m
  if (!url) return <span className="text-xs text-slate-600">Picture message with no media address</span>
  const safe = safeHttpUrl(url)
  if (!safe)
    return (
      <span className="block text-xs text-red-900">
        Unsafe media link, not opened: <code className="break-all">{url.slice(0, 120)}</code>
      </span>
    )
  const kind = mediaKind(safe)
  const name = fileNameOf(safe)
  const src = mediaSrc({ number: number ?? pageNumber ?? null, ordinal, systemId: m.systemId, messageId: m.messageId })
  if (!src)
    return (
      <span className="text-xs text-slate-600">
        Media {name} not shown: the message has no id the server can look it up by
        <span className="hidden break-all print:inline"> (from {new URL(safe).host})</span>
      </span>
    )
  if (kind !== 'image')
    return (
      <a
        href={src}
        target="_blank"
        rel="noopener noreferrer"
        referrerPolicy="no-referrer"
        className="inline-flex items-center gap-1 text-sm text-blue-800 underline"
      >
        <span aria-hidden="true">📎</span>
        {KIND_LABEL[kind]}: {name}
        <span className="hidden break-all print:inline"> (from {new URL(safe).host})</span>
      </a>
    )
  const alt = `Picture message ${name}${from ? ` from ${formatPhone(from)}` : ''}`
  const size = inline ? 'h-32 w-40' : 'h-16 w-20'
  if (failed)
    return (
      <span
        role="img"
        aria-label={`${alt} (could not be loaded)`}
        className={`flex items-center justify-center rounded border border-dashed border-slate-400 bg-slate-100 text-xs text-slate-700 ${inline ? 'h-32 w-40' : 'h-16 w-20'}`}
      >
        Image unavailable
      </span>
    )
  return (
    <>
      <button
        ref={settleRef}
        type="button"
        className="block rounded border border-slate-300 p-0.5 hover:border-blue-700"
        aria-label={`Open ${alt}`}
        onClick={(e) => {
          openMedia(src, alt, e.currentTarget)
        }}
      >
        {/* Asked for once the row has settled in view (use-shown-when-settled): until then a box of its size. */}
        {shown ? (
          <img
            src={src}
            alt={alt}
            loading="lazy"
            decoding="async"
            referrerPolicy="no-referrer"
            onError={() => {
              setFailed(true)
            }}
            className={`object-cover ${size}`}
          />
        ) : (
          <span aria-hidden="true" className={`inline-block bg-slate-100 ${size}`} />
        )}
      </button>
      {/* On paper a picture is named by its file and the host it came from, like every other
          medium: not its whole link, whose path and query often carry the provider's access token. */}
      <span className="hidden text-xs break-all print:inline">
        Picture: {name} (from {new URL(safe).host})
      </span>
    </>
  )
}

/** A message's text and, for a picture message, its media: the Message cell of every message table. */
export function MessageCell({ m }: { m: MediaMessage & { body: string | null; mms: boolean; number?: string; ordinal?: number } }) {
  return (
    <div className="flex flex-col gap-1">
      <BodyText body={m.body} />
      {m.mms ? <MediaPreview m={m} {...(m.number ? { number: m.number } : {})} ordinal={m.ordinal ?? null} /> : null}
    </div>
  )
}
