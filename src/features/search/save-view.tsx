import { useQueryClient } from '@tanstack/react-query'
import { useId, useRef, useState, type SubmitEvent } from 'react'
import { pageWords } from '../../../contract/search-filters'
import { RANGE_LABELS, RELATIVE_RANGES, VIEW_NAME_MAX, type RelativeRange } from '../../../contract/saved-views'
import { toApiError } from '../../api/errors'
import { createView, refreshViews } from '../../api/views'
import type { SearchSearch } from '../../lib/route-params'

/** The page's query string as its URL writes it; a relative range leaves its fixed days out. */
export function viewQuery(s: SearchSearch, range: RelativeRange | null): string {
  const p = new URLSearchParams()
  for (const [key, word] of pageWords(s)) if (!(range && (key === 'from' || key === 'to'))) p.set(key, word)
  if (s.tz === 'utc') p.set('tz', 'utc')
  return p.toString()
}

type Dates = 'fixed' | RelativeRange

/**
 * "Save view": this search under a name, for oneself or the whole team, with its days as set on
 * the page or as a range that moves with the calendar ("last 7 days" is worked out each time the
 * view is opened). The server checks everything again and names the field it refuses.
 */
export function SaveView({ search }: { search: SearchSearch }) {
  const client = useQueryClient()
  const id = useId()
  const [open, setOpen] = useState(false)
  const [name, setName] = useState('')
  const [shared, setShared] = useState(false)
  const [dates, setDates] = useState<Dates>('fixed')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<{ field: string | null; message: string } | null>(null)
  const [saved, setSaved] = useState<string | null>(null)
  // The form closes on saving and on Escape: focus goes back to the button that opened it, not to the page's body.
  const opener = useRef<HTMLButtonElement>(null)
  const close = () => {
    setOpen(false)
    opener.current?.focus()
  }
  const fixedDays = search.from || search.to ? `${search.from || 'the start'} to ${search.to || 'today'}` : 'any date'

  async function submit(e: SubmitEvent) {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const range = dates === 'fixed' ? null : dates
      const view = await createView({ name, shared, query: viewQuery(search, range), range })
      setSaved(`Saved "${view.name}"${view.shared ? ', shared with the team' : ''}. It is listed under Saved views.`)
      close()
      setName('')
      void refreshViews(client)
    } catch (err) {
      const apiErr = toApiError(err)
      setError({ field: apiErr.extra.field ?? null, message: apiErr.message })
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="mt-2 print:hidden">
      <div className="flex flex-wrap items-center gap-3">
        <button
          ref={opener}
          type="button"
          className="btn"
          aria-expanded={open}
          aria-controls={`${id}-form`}
          onClick={() => {
            setOpen(!open)
            setSaved(null)
          }}
        >
          Save view
        </button>
        <p role="status" className="text-sm text-green-800">
          {saved}
        </p>
      </div>
      {open ? (
        <form
          id={`${id}-form`}
          aria-label="Save this search as a view"
          className="mt-2 flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-3 text-sm"
          onSubmit={(e) => void submit(e)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault()
              close()
            }
          }}
        >
          <label className="flex flex-col">
            Name
            <input
              autoFocus
              className="input w-64 max-w-full"
              value={name}
              maxLength={VIEW_NAME_MAX}
              required
              onChange={(e) => {
                setName(e.target.value)
              }}
              aria-invalid={error?.field === 'name' || undefined}
              aria-describedby={error ? `${id}-error` : undefined}
            />
          </label>
          <label className="flex flex-col">
            Dates
            <select
              className="input"
              value={dates}
              onChange={(e) => {
                setDates(e.target.value as Dates)
              }}
            >
              <option value="fixed">As on this page ({fixedDays})</option>
              {RELATIVE_RANGES.map((r) => (
                <option key={r} value={r}>
                  {RANGE_LABELS[r]}
                </option>
              ))}
            </select>
          </label>
          <fieldset className="flex flex-col">
            <legend>Who can see it</legend>
            <div className="flex gap-3">
              <label className="flex items-center gap-1">
                <input
                  type="radio"
                  name={`${id}-who`}
                  checked={!shared}
                  onChange={() => {
                    setShared(false)
                  }}
                />
                Only me
              </label>
              <label className="flex items-center gap-1">
                <input
                  type="radio"
                  name={`${id}-who`}
                  checked={shared}
                  onChange={() => {
                    setShared(true)
                  }}
                />
                Everyone on the team
              </label>
            </div>
          </fieldset>
          <button type="submit" className="btn" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
          {error ? (
            <p id={`${id}-error`} role="alert" className="w-full text-red-800">
              Not saved: {error.message}
            </p>
          ) : null}
        </form>
      ) : null}
    </div>
  )
}
