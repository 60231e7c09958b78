import { createContext, useContext } from 'react'
import type { Message } from '../../api/history'
import type { Zone } from '../../lib/dates'
import { PAGES } from '../../../contract/pages'
import { linkSearch, messageSearch, threadSearch, type MessageSearch, type SearchInput, type ThreadSearch } from '../../lib/route-params'
import { pathHref } from '../plain-link'

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

/** A thread link's address, as the router writes it (row-links.test.tsx). */
export const threadHref = (l: ThreadLink): string =>
  `${pathHref(PAGES.thread.path, { number: l.number })}${linkSearch(threadSearch, l.search)}`
/** A message link's address, as the router writes it (row-links.test.tsx). */
export const messageHref = (l: MessageLink): string =>
  `${pathHref(PAGES.message.path, { number: l.number, ordinal: l.ordinal })}${linkSearch(messageSearch, l.search)}`

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
