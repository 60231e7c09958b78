import { locateInThread } from '../../api/index-api'
import { GoToDateForm, type FindDay } from '../../components/go-to-date'
import { dayOf, endOfDay, formatDay, zoneLabel, type Zone } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'

/** A go-to-date's day (YYYY-MM-DD in the shown zone) in words: "Sunday, November 15, 2026". */
export function formatDayOf(day: string, zone: Zone): string {
  const end = endOfDay(day, zone)
  return end === null ? day : formatDay(end - 1, zone)
}

/**
 * The thread's "Go to date": the newest message with this party on or before that day, found in
 * the index in one look-up, becomes the message the thread opens at and marks (`at`); the day
 * goes in the URL beside it, so a reload or a shared link lands there again.
 */
export function ThreadGoToDate({
  number,
  party,
  zone,
  date,
  at,
  onFound,
}: {
  number: string
  party: string
  zone: Zone
  /** From the URL: the day asked for, and the message it led to. */
  date: string
  at: number | null
  onFound: (ordinal: number, day: string) => void
}) {
  const end = date && at !== null ? endOfDay(date, zone) : null
  const asked =
    end !== null ? { day: date, text: `Went to ${formatDay(end - 1, zone)}: the message marked is the newest on or before it.` } : null
  const find: FindDay = async (day, limit, signal) => {
    const dayName = formatDay(limit - 1, zone)
    const m = await locateInThread(number, party, new Date(limit - 1).toISOString(), signal)
    if (!m) return `No messages with ${formatPhone(party)} on or before ${dayName}.`
    onFound(m.ordinal, day)
    return m.dateMs !== null && dayOf(m.dateMs, zone) === day
      ? `Showing the newest message of ${dayName}.`
      : `No messages on ${dayName}. Showing the nearest older message${m.dateMs !== null ? `, of ${formatDay(m.dateMs, zone)}` : ''}.`
  }
  return <GoToDateForm zone={zone} find={find} asked={asked} idleNote={`Looked up in the message index (days in ${zoneLabel(zone)}).`} />
}
