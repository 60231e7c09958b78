import { useState, type SyntheticEvent } from 'react'
import { formatPhone } from '../../lib/phone'

/** One number to narrow a list to (digits; a + and punctuation are dropped), or every number. */
export function NumberFilter({ value, onChange, id }: { value: string; onChange: (n: string) => void; id: string }) {
  const [text, setText] = useState(value)
  const submit = (e: SyntheticEvent) => {
    e.preventDefault()
    onChange(text.replace(/\D/g, ''))
  }
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-2 text-sm">
      <label htmlFor={id} className="flex flex-col">
        Number (empty: every number)
        <input
          id={id}
          type="tel"
          inputMode="tel"
          value={text}
          onChange={(e) => {
            setText(e.target.value)
          }}
          className="mt-1 w-48 rounded border border-slate-400 px-2 py-1"
        />
      </label>
      <button type="submit" className="rounded border border-slate-400 px-3 py-1 hover:bg-slate-100">
        Show
      </button>
      {value ? (
        <button
          type="button"
          onClick={() => {
            setText('')
            onChange('')
          }}
          className="rounded border border-slate-400 px-3 py-1 hover:bg-slate-100"
        >
          Every number<span className="sr-only"> (stop showing only {formatPhone(value)})</span>
        </button>
      ) : null}
    </form>
  )
}
