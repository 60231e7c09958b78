import { useMemo } from 'react'
import type { HistoryPage } from '../../api/history'
import type { HistoryDisplay } from '../../components/message/display-context'
import type { Zone } from '../../lib/dates'
import { useMediaViewer } from '../../components/message/media-viewer'

/**
 * What every message row of the history needs from the page (zone, the marked record, links to
 * its thread and its own page) and the media viewer's state that its thumbnails open.
 */
export function useHistoryDisplay(opts: {
  number: string
  tid: string
  zone: Zone
  marked: number | null
  indexAvailable: boolean
  shown: HistoryPage | undefined
}) {
  const { number, tid, zone, marked, indexAvailable, shown } = opts
  const { media, open: openMedia, close: closeMedia } = useMediaViewer()
  const display = useMemo<HistoryDisplay>(
    () => ({
      zone,
      number,
      openMedia,
      marked,
      threadLink: indexAvailable ? (m) => (m.phone ? { number, search: { tid, party: m.phone, tz: zone } } : null) : undefined,
      messageLink: (m) => (shown ? { number, ordinal: shown.total - m.position + 1, search: { tid, tz: zone } } : null),
    }),
    [zone, openMedia, marked, indexAvailable, number, tid, shown],
  )
  return {
    display,
    media,
    closeMedia,
  }
}
