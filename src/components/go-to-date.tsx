import { useRef, useState } from 'react'
import { toApiError, wordsFor } from '../api/errors'
import { endOfDay, isWholeDay, type Zone } from '../lib/dates'

type State = { phase: 'idle' } | { phase: 'busy'; probes: number } | { phase: 'done'; text: string } | { phase: 'failed'; text: string }

/** What a look-up found, in words for the note; null when it was overtaken by a newer one. */
export type FindDay = (
  day: string,
  /** The first instant after that day in the shown zone, so "that day" is the reader's day, not UTC's. */
  limitMs: number,
  signal: AbortSignal,
  /** Look-ups made so far, for a look-up that takes several. */
  progress: (probes: number) => void,
) => Promise<string | null>

/**
 * "Go to date": a day typed or picked, a look-up (`find`) that moves the page there, and a note
 * saying what was found or why not. The history's and the thread's date jumps are this form with
 * their own look-ups; the day asked for lives in the page's URL, so `asked` shows it again after a reload.
 * One a page: the note's id is fixed.
 */
export function GoToDateForm({
  zone,
  find,
  idleNote,
  disabled = false,
  asked = null,
}: {
  zone: Zone
  find: FindDay
  /** The note before any look-up: how the day will be found. */
  idleNote: string
  disabled?: boolean
  /** From the URL: the day asked for and what it led to, in words. */
  asked?: { day: string; text: string } | null
}) {
  const [day, setDay] = useState(asked?.day ?? '')
  const [state, setState] = useState<State>(() => (asked ? { phase: 'done', text: asked.text } : { phase: 'idle' }))
  const abort = useRef<AbortController | null>(null)

  const go = async () => {
    const limit = isWholeDay(day) ? endOfDay(day, zone) : null
    if (limit === null) {
      setState({ phase: 'failed', text: 'Type the whole date (day, month and four-digit year) or pick one.' })
      return
    }
    abort.current?.abort()
    const controller = new AbortController()
    abort.current = controller
    setState({ phase: 'busy', probes: 0 })
    try {
      const text = await find(day, limit, controller.signal, (probes) => {
        setState({ phase: 'busy', probes })
      })
      if (text !== null && !controller.signal.aborted) setState({ phase: 'done', text })
    } catch (err) {
      if (controller.signal.aborted) return
      const e = toApiError(err)
      setState({ phase: 'failed', text: `${wordsFor(e).title}: ${e.extra.cause ?? e.message}` })
    }
  }

  return (
    <form
      data-go-to-date
      className="flex flex-wrap items-end gap-2 text-sm print:hidden"
      onSubmit={(e) => {
        e.preventDefault()
        void go()
      }}
    >
      <label className="flex flex-col">
        Go to date
        <input
          type="date"
          className="input"
          value={day}
          onChange={(e) => {
            setDay(e.target.value)
          }}
          aria-describedby="go-to-date-note"
        />
      </label>
      <button type="submit" className="btn" disabled={state.phase === 'busy' || disabled}>
        {state.phase === 'busy' ? 'Finding…' : 'Show that day'}
      </button>
      <p id="go-to-date-note" role="status" className="text-slate-700">
        {state.phase === 'busy'
          ? `Looking… ${state.probes ? `${state.probes} look-ups so far` : ''}`
          : state.phase === 'done' || state.phase === 'failed'
            ? state.text
            : idleNote}
      </p>
    </form>
  )
}
