import { createContext, useContext } from 'react'
import type { Message } from '../../api/history'
import type { Zone } from '../../lib/dates'

/** What cells need from the page without making the column definitions unstable. */
export interface HistoryDisplay {
  zone: Zone
  openMedia: (url: string, alt: string, opener: HTMLElement) => void
  /** Where a row's "Other party" links: its whole thread (null: no link, e.g. index off). */
  threadHref?: (m: Message) => string | null
  /** The row's own message page. */
  messageHref?: (m: Message) => string | null
  /** A record position to mark (from search, go to date, the message page). */
  marked?: number | null
  /** Text to highlight in bodies (search). */
  highlight?: string
}

export const HistoryDisplayContext = createContext<HistoryDisplay>({ zone: 'local', openMedia: () => undefined })
export const useHistoryDisplay = () => useContext(HistoryDisplayContext)
