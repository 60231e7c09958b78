import { useId, useState } from 'react'
import { isWholeDay } from '../lib/dates'

/**
 * A date box bound to a URL parameter that changes it only on a whole, real day. Chromium's
 * date input reports a valid value at the first digit of the year (`2` → `0002-11-17`), and a
 * box driven by the URL would save that, re-render with it and eat the rest of the typing. So the
 * box keeps what is being typed, and the URL follows only a whole day or a field cleared on purpose.
 */
export function DayField({
  label,
  value,
  onCommit,
  className = 'flex flex-col',
  describedBy,
  problem,
}: {
  label: string
  /** The day in the URL (YYYY-MM-DD or ''). */
  value: string
  onCommit: (day: string) => void
  className?: string
  describedBy?: string
  /** What is wrong with the committed day beside another field (a To before its From), shown under the box. */
  problem?: string | null
}) {
  const [text, setText] = useState(value)
  const [seen, setSeen] = useState(value)
  const [partial, setPartial] = useState(false)
  const [told, setTold] = useState(false)
  const noteId = useId()
  // The URL moved from outside (back/forward, Clear all, a link): the box follows it.
  if (value !== seen) {
    setSeen(value)
    setText(value)
    setPartial(false)
    setTold(false)
  }
  const unfinished = partial || (text !== '' && !isWholeDay(text))
  const note =
    told && unfinished
      ? `Type the whole date (day, month and four-digit year). ${value ? `Still using ${value}.` : 'No date filter yet.'}`
      : (problem ?? null)
  return (
    <span className={className}>
      <label className="flex flex-col">
        {label}
        <input
          type="date"
          className="input"
          value={text}
          aria-invalid={note ? true : undefined}
          aria-describedby={[note ? noteId : '', describedBy ?? ''].filter(Boolean).join(' ') || undefined}
          onChange={(e) => {
            const v = e.target.value
            // A box with some parts typed and others not reports '' with badInput: not a clearing.
            const half = v === '' && e.target.validity.badInput
            setText(v)
            setPartial(half)
            if (isWholeDay(v)) {
              setTold(false)
              setSeen(v)
              onCommit(v)
            } else if (v === '' && !half && value !== '') {
              setTold(false)
              setSeen('')
              onCommit('')
            }
          }}
          onBlur={(e) => {
            // A box going from empty to a half-typed or impossible day (31 February) stays '' and
            // fires no input or change event at all: only its validity says something was typed.
            const el = e.currentTarget
            if (el.value === '') setPartial(el.validity.badInput)
            setTold(true)
          }}
        />
      </label>
      {note ? (
        <span id={noteId} className="mt-0.5 max-w-48 text-xs text-red-800">
          {note}
        </span>
      ) : null}
    </span>
  )
}
