import { useQueryClient } from '@tanstack/react-query'
import { fetchHistory } from '../../api/history'
import { locateDate } from '../../api/index-api'
import { holdsWhole, indexRowFor, indexStatusQuery } from '../../api/index-status'
import { GoToDateForm, type FindDay } from '../../components/go-to-date'
import { formatCount } from '../../lib/count'
import { dayOf, endOfDay, formatDay, zoneLabel, type Zone } from '../../lib/dates'
import { firstPositionBefore } from '../../lib/locate'

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
  const queryClient = useQueryClient()
  const end = asked ? endOfDay(asked.day, zone) : null
  const again =
    asked && end !== null
      ? { day: asked.day, text: `Went to ${formatDay(end - 1, zone)}: record ${formatCount(asked.position)} is marked.` }
      : null

  const find: FindDay = async (day, limit, signal, progress) => {
    if (total === null) return null
    const dayName = formatDay(limit - 1, zone)
    let position: number | null
    let dateMs: number | null = null
    let how: string
    // Asked before the index status answered (a slow database): wait for it rather than bisect
    // a history the index holds whole. A status that fails leaves the bisection, which needs no index.
    const status = checking
      ? await queryClient.query(indexStatusQuery()).catch(() => undefined)
      : queryClient.getQueryData(indexStatusQuery().queryKey)
    const useIndex = checking ? holdsWhole(status, number, tid) : indexed
    if (signal.aborted) return null
    if (useIndex) {
      // The last instant of that day in the shown zone, so "that day" is the reader's day, not UTC's.
      // Looked up in the row that holds this tid's history (a further line's, contract/lines.ts, for a second tid).
      const key = indexRowFor(status, number, tid)?.number ?? number
      const r = await locateDate(key, new Date(limit - 1).toISOString(), signal)
      position = r.message?.position ?? null
      dateMs = r.message?.dateMs ?? null
      how = 'found with the message index'
    } else {
      let probes = 0
      const r = await firstPositionBefore(total, limit, async (p) => {
        const pg = await fetchHistory(number, tid, p, p, signal)
        progress(++probes)
        return pg.messages[0]?.dateMs ?? null
      })
      position = r.position
      if (position !== null) dateMs = (await fetchHistory(number, tid, position, position, signal)).messages[0]?.dateMs ?? null
      how = `found in ${r.probes} one-record look-ups`
    }
    if (position === null) {
      if (total > 0) onFound(total, day)
      return `No messages on or before ${dayName}. The oldest message is on the last page.`
    }
    const sameDay = dateMs !== null && dayOf(dateMs, zone) === day
    onFound(position, day)
    return sameDay
      ? `Showing the newest message of ${dayName} (record ${formatCount(position)}), ${how}.`
      : `No messages on ${dayName}. Showing the nearest older message (record ${formatCount(position)}), ${how}.`
  }

  return (
    <GoToDateForm
      zone={zone}
      find={find}
      disabled={total === null}
      asked={again}
      idleNote={
        checking
          ? `Pick a day, or type it as YYYY-MM-DD (days in ${zoneLabel(zone)}).`
          : indexed
            ? `Looked up in the message index (days in ${zoneLabel(zone)}).`
            : 'Without the index this takes about 20 one-record look-ups on a large history.'
      }
    />
  )
}
