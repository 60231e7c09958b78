import { createContext, useContext } from 'react'
import type { Zone } from '../../lib/dates'

/** What cells need from the page without making the column definitions unstable. */
export interface HistoryDisplay {
  zone: Zone
  openMedia: (url: string, alt: string, opener: HTMLElement) => void
}

export const HistoryDisplayContext = createContext<HistoryDisplay>({ zone: 'local', openMedia: () => undefined })
export const useHistoryDisplay = () => useContext(HistoryDisplayContext)
