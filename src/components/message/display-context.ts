import { createContext, useContext } from 'react'
import type { Message } from '../../api/history'
import type { Zone } from '../../lib/dates'
import type { MessageSearch, SearchInput, ThreadSearch } from '../../lib/route-params'

/** A link to a thread page, as values the route tree types. */
export interface ThreadLink {
  number: string
  search: SearchInput<ThreadSearch>
}
/** A link to a message page. */
export interface MessageLink {
  number: string
  ordinal: number
  search: SearchInput<MessageSearch>
}

/** What cells need from the page without making the column definitions unstable. */
export interface HistoryDisplay {
  zone: Zone
  /** The account number the page shows messages of, when it is one (media requests name it for the access log). */
  number?: string
  openMedia: (url: string, alt: string, opener: HTMLElement) => void
  /** Where a row's "Other party" links: its whole thread (null: no link, e.g. index off). */
  threadLink?: (m: Message) => ThreadLink | null
  /** The row's own message page. */
  messageLink?: (m: Message) => MessageLink | null
  /** A record position to mark (from search, go to date, the message page). */
  marked?: number | null
  /** Text to highlight in bodies (search). */
  highlight?: string
}

export const HistoryDisplayContext = createContext<HistoryDisplay>({ zone: 'local', openMedia: () => undefined })
export const useHistoryDisplay = () => useContext(HistoryDisplayContext)
