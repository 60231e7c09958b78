import { useId } from 'react'
import { statusText, type ParsedStatus } from '../../lib/status'

const STYLE: Record<ParsedStatus['label'], string> = {
  Success: 'border-green-700 bg-green-50 text-green-900',
  Error: 'border-red-700 bg-red-50 text-red-900',
  Unknown: 'border-slate-500 bg-slate-100 text-slate-900',
}
const ICON: Record<ParsedStatus['label'], string> = { Success: '✓', Error: '✕', Unknown: '?' }

/**
 * Text first, colour second; the full upstream status string shows on hover, and is the badge's
 * description for a screen reader. Not a tab stop: a page of 100 rows had 100 more stops, and
 * the message page (every row's Details) shows the full text for a keyboard.
 */
export function StatusBadge({ status }: { status: ParsedStatus }) {
  const id = useId()
  return (
    <span className="group relative inline-block">
      <span className={`chip ${STYLE[status.label]}`} aria-describedby={status.full ? id : undefined} title={status.full || undefined}>
        <span aria-hidden="true" className="mr-1">
          {ICON[status.label]}
        </span>
        {statusText(status)}
      </span>
      {status.full ? (
        <span
          id={id}
          role="tooltip"
          className="pointer-events-none invisible absolute right-0 z-30 mt-1 w-64 rounded bg-slate-900 p-2 text-xs text-white group-hover:visible"
        >
          {status.full}
        </span>
      ) : null}
    </span>
  )
}
