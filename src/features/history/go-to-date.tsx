import { useQueryClient } from '@tanstack/react-query'
import { useRef, useState } from 'react'
import { toApiError, wordsFor } from '../../api/errors'
import { fetchHistory } from '../../api/history'
import { locateDate } from '../../api/index-api'
import { holdsWhole, indexStatusQuery } from '../../api/index-status'
import { formatCount } from '../../lib/count'
import { dayOf, endOfDay, formatDay, isWholeDay, zoneLabel, type Zone } from '../../lib/dates'
import { firstPositionBefore } from '../../lib/locate'

type State = { phase: 'idle' } | { phase: 'busy'; probes: number } | { phase: 'done'; text: string } | { phase: 'failed'; text: string }

/**
 * "Go to date": the first page holding messages of that day. With the index it is one look-up
 * (/api/index/locate); without it, a bisection over record positions with one-record history
 * requests (about 20 for a million records), since dates only go back as positions grow.
 */
export function GoToDate({
  number,
  tid,
  total,
  zone,
  indexed,
  checking = false,
  asked = null,
  onFound,
}: {
  number: string
  tid: string
  total: number | null
  zone: Zone
  indexed: boolean
  /** The index status has not answered yet: the note does not guess which way the look-up will go. */
  checking?: boolean
  /** From the URL: the day asked for and the record it led to, shown again after a reload. */
  asked?: { day: string; position: number } | null
  onFound: (position: number, day: string) => void
}) {
  const [day, setDay] = useState(asked?.day ?? '')
  const [state, setState] = useState<State>(() => {
    const end = asked ? endOfDay(asked.day, zone) : null
    return asked && end !== null
      ? { phase: 'done', text: `Went to ${formatDay(end - 1, zone)}: record ${formatCount(asked.position)} is marked.` }
      : { phase: 'idle' }
  })
  const queryClient = useQueryClient()
  const abort = useRef<AbortController | null>(null)

  const go = async () => {
    const limit = isWholeDay(day) ? endOfDay(day, zone) : null
    if (limit === null || total === null) {
      setState({ phase: 'failed', text: 'Type the whole date (day, month and four-digit year) or pick one.' })
      return
    }
    abort.current?.abort()
    const controller = new AbortController()
    abort.current = controller
    setState({ phase: 'busy', probes: 0 })
    const dayName = formatDay(limit - 1, zone)
    try {
      let position: number | null = null
      let dateMs: number | null = null
      let how = ''
      // Asked before the index status answered (a slow database): wait for it rather than bisect
      // a history the index holds whole. A status that fails leaves the bisection, which needs no index.
      const useIndex = checking ? holdsWhole(await queryClient.query(indexStatusQuery()).catch(() => undefined), number) : indexed
      if (controller.signal.aborted) return
      if (useIndex) {
        // The last instant of that day in the shown zone, so "that day" is the reader's day, not UTC's.
        const r = await locateDate(number, new Date(limit - 1).toISOString(), controller.signal)
        position = r.message?.position ?? null
        dateMs = r.message?.dateMs ?? null
        how = 'found with the message index'
      } else {
        let probes = 0
        const r = await firstPositionBefore(total, limit, async (p) => {
          const pg = await fetchHistory(number, tid, p, p, controller.signal)
          setState({ phase: 'busy', probes: ++probes })
          return pg.messages[0]?.dateMs ?? null
        })
        position = r.position
        if (position !== null) dateMs = (await fetchHistory(number, tid, position, position, controller.signal)).messages[0]?.dateMs ?? null
        how = `found in ${r.probes} one-record look-ups`
      }
      if (position === null) {
        setState({ phase: 'done', text: `No messages on or before ${dayName}. The oldest message is on the last page.` })
        if (total > 0) onFound(total, day)
        return
      }
      const sameDay = dateMs !== null && dayOf(dateMs, zone) === day
      setState({
        phase: 'done',
        text: sameDay
          ? `Showing the newest message of ${dayName} (record ${formatCount(position)}), ${how}.`
          : `No messages on ${dayName}. Showing the nearest older message (record ${formatCount(position)}), ${how}.`,
      })
      onFound(position, day)
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
      <button type="submit" className="btn" disabled={state.phase === 'busy' || total === null}>
        {state.phase === 'busy' ? 'Finding…' : 'Show that day'}
      </button>
      <p id="go-to-date-note" role="status" className="text-slate-700">
        {state.phase === 'busy'
          ? `Looking… ${state.probes ? `${state.probes} look-ups so far` : ''}`
          : state.phase === 'done' || state.phase === 'failed'
            ? state.text
            : checking
              ? `Pick a day, or type it as YYYY-MM-DD (days in ${zoneLabel(zone)}).`
              : indexed
                ? `Looked up in the message index (days in ${zoneLabel(zone)}).`
                : 'Without the index this takes about 20 one-record look-ups on a large history.'}
      </p>
    </form>
  )
}
