import { useId, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { formatPhone } from '../lib/phone'

/** Options drawn at once: a list of 10,000 is no help to anyone, and typing narrows it. */
export const SHOWN_MAX = 50

/** The numbers whose digits or formatted form hold what was typed ("832 32", "(832)", "2323"). */
export function matchNumbers<T extends { number: string }>(numbers: readonly T[], typed: string): T[] {
  const text = typed.trim().toLowerCase()
  if (!text) return [...numbers]
  const digits = text.replace(/\D/g, '')
  return numbers.filter((n) => (digits && n.number.includes(digits)) || formatPhone(n.number).toLowerCase().includes(text))
}

/**
 * A number picker that holds an account of 10,000 numbers: type to filter, arrows to move, Enter
 * or a click to pick, Escape to go back (WAI-ARIA APG's combobox with a list popup). A pick is
 * committed once, when made: browsing the list loads nothing and logs nothing, as a select's
 * arrow keys did for every number passed on the way.
 *
 * `allLabel`, when given, is the first option and stands for no number (''): "All numbers".
 */
export function NumberCombobox({
  label,
  numbers,
  value,
  onPick,
  allLabel,
  placeholder = 'Type digits to find a number',
  className = 'w-56',
  note = '',
}: {
  label: string
  numbers: ReadonlyArray<{ number: string }>
  /** The number picked ('' for allLabel's option, or none). */
  value: string
  onPick: (number: string) => void
  allLabel?: string
  placeholder?: string
  className?: string
  /** A word on the number shown, under the box and in its description ("Not in this account"). */
  note?: string
}) {
  const id = useId()
  const listId = `${id}-list`
  const input = useRef<HTMLInputElement>(null)
  const shownText = value ? formatPhone(value) : (allLabel ?? '')
  // null: not typing, the input shows the pick; else the text typed.
  const [typed, setTyped] = useState<string | null>(null)
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(0)
  const matches = useMemo(() => matchNumbers(numbers, typed ?? ''), [numbers, typed])
  const options = useMemo(
    () => [
      ...(allLabel !== undefined && !typed ? [{ number: '', text: allLabel }] : []),
      ...matches.slice(0, SHOWN_MAX).map((n) => ({ number: n.number, text: formatPhone(n.number) })),
    ],
    [allLabel, typed, matches],
  )
  const more = matches.length - Math.min(matches.length, SHOWN_MAX)
  const optionId = (i: number) => `${id}-opt-${i}`

  const close = () => {
    setOpen(false)
    setTyped(null)
    setActive(0)
  }
  const pick = (number: string) => {
    close()
    if (number !== value) onPick(number)
  }
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      if (!open) {
        setOpen(true)
        setActive(
          Math.max(
            0,
            options.findIndex((o) => o.number === value),
          ),
        )
        return
      }
      const step = e.key === 'ArrowDown' ? 1 : -1
      setActive((a) => (options.length === 0 ? 0 : (a + step + options.length) % options.length))
    } else if (e.key === 'Enter') {
      if (!open) return
      e.preventDefault()
      const o = options[active]
      if (o) pick(o.number)
    } else if (e.key === 'Escape') {
      if (open || typed !== null) {
        e.preventDefault()
        close()
      }
    } else if (e.key === 'Home' && open) {
      e.preventDefault()
      setActive(0)
    } else if (e.key === 'End' && open) {
      e.preventDefault()
      setActive(Math.max(0, options.length - 1))
    }
  }

  return (
    <div className="relative flex flex-col">
      <label htmlFor={`${id}-input`}>{label}</label>
      <input
        ref={input}
        id={`${id}-input`}
        type="text"
        role="combobox"
        inputMode="tel"
        autoComplete="off"
        spellCheck={false}
        className={`input ${className}`}
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && options[active] ? optionId(active) : undefined}
        aria-describedby={note ? `${id}-note` : undefined}
        placeholder={placeholder}
        value={typed ?? shownText}
        onChange={(e) => {
          setTyped(e.target.value)
          setOpen(true)
          setActive(0)
        }}
        onFocus={(e) => {
          e.target.select()
        }}
        onClick={() => {
          setOpen(true)
        }}
        onBlur={close}
        onKeyDown={onKeyDown}
      />
      {note ? (
        <p id={`${id}-note`} className="text-xs text-slate-700">
          {note}
        </p>
      ) : null}
      <p role="status" className="sr-only">
        {open && typed ? `${matches.length.toLocaleString('en-US')} ${matches.length === 1 ? 'number matches' : 'numbers match'}` : ''}
      </p>
      {open ? (
        <NumberListbox
          listId={listId}
          label={label}
          options={options}
          optionId={optionId}
          value={value}
          active={active}
          onPick={pick}
          typed={typed}
          more={more}
        />
      ) : null}
    </div>
  )
}

/** The popup: the options drawn (at most SHOWN_MAX), or that none matches, and how many more there are. */
function NumberListbox({
  listId,
  label,
  options,
  optionId,
  value,
  active,
  onPick,
  typed,
  more,
}: {
  listId: string
  label: string
  options: ReadonlyArray<{ number: string; text: string }>
  optionId: (i: number) => string
  value: string
  active: number
  onPick: (number: string) => void
  typed: string | null
  more: number
}) {
  return (
    <div className="absolute top-full left-0 z-20 mt-1 w-full min-w-56 rounded border border-slate-300 bg-white shadow-lg">
      <ul id={listId} role="listbox" aria-label={label} className="max-h-64 overflow-y-auto py-1">
        {options.map((o, i) => (
          <li
            key={o.number || 'all'}
            id={optionId(i)}
            role="option"
            aria-selected={o.number === value}
            className={`cursor-pointer px-2 py-1 ${i === active ? 'bg-blue-100 text-blue-950' : ''} ${o.number === value ? 'font-semibold' : ''}`}
            // Keeps focus in the input: a click picks, and the blur that would close the list first never comes.
            onMouseDown={(e) => {
              e.preventDefault()
            }}
            onClick={() => {
              onPick(o.number)
            }}
          >
            {o.text}
          </li>
        ))}
      </ul>
      {options.length === 0 ? <p className="px-2 py-1 text-slate-700">No number matches “{typed}”.</p> : null}
      {more > 0 ? (
        <p className="border-t border-slate-200 px-2 py-1 text-xs text-slate-700">
          {more.toLocaleString('en-US')} more: type more digits to narrow the list.
        </p>
      ) : null}
    </div>
  )
}
