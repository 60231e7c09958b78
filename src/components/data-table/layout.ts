import { useEffect, useState, useSyncExternalStore } from 'react'
import { flushSync } from 'react-dom'

/** A phone's width (Tailwind's `sm` and below), on screen: lists shown as cards there (usePhoneCards). */
export const PHONE_QUERY = 'screen and (max-width: 639.98px)'

/**
 * Layout decisions the table makes from the viewport, never from a measured element: a media
 * query answers during the first render without a layout, so cards versus table is settled
 * before the first paint and nothing on screen switches afterwards (no layout shift).
 */
export function useMedia(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const mq = mediaList(query)
      if (!mq) return () => {}
      mq.addEventListener('change', onChange)
      return () => {
        mq.removeEventListener('change', onChange)
      }
    },
    () => mediaList(query)?.matches ?? false,
    () => false,
  )
}

/**
 * One MediaQueryList per query, kept: React reads the snapshot several times per render and
 * commit, and each matchMedia() call built a new list and evaluated the query again (on the
 * numbers page's first rows, a few milliseconds of a throttled phone's main thread). A kept list's
 * `matches` follows the viewport as it changes.
 */
const mediaLists = new Map<string, MediaQueryList>()
function mediaList(query: string): MediaQueryList | null {
  if (typeof matchMedia !== 'function') return null
  let mq = mediaLists.get(query)
  if (!mq) mediaLists.set(query, (mq = matchMedia(query)))
  return mq
}

/**
 * True while the page is being printed. A windowed table holds only the rows in view, and a
 * printed transcript needs all of them: `beforeprint` is handled with flushSync so every row is
 * in the DOM before the browser lays out the pages (it does not wait for a later render). The
 * print media query covers printing that fires no event (emulated print media, headless PDF).
 */
export function usePrinting(): boolean {
  return usePrintingSince() !== null
}

/** When the printing under way began (Date.now()), or null when the page is not being printed: the time a printed page gives. */
export function usePrintingSince(): number | null {
  const [since, setSince] = useState(() => (typeof matchMedia === 'function' && matchMedia('print').matches ? Date.now() : null))
  useEffect(() => {
    const mq = matchMedia('print')
    const on = () => {
      flushSync(() => {
        setSince((s) => s ?? Date.now())
      })
    }
    const off = () => {
      setSince((s) => (mq.matches ? (s ?? Date.now()) : null))
    }
    const onMedia = () => {
      if (mq.matches) on()
      else off()
    }
    window.addEventListener('beforeprint', on)
    window.addEventListener('afterprint', off)
    mq.addEventListener('change', onMedia)
    return () => {
      window.removeEventListener('beforeprint', on)
      window.removeEventListener('afterprint', off)
      mq.removeEventListener('change', onMedia)
    }
  }, [])
  return since
}

const REM = 16
const DEFAULT_AUTO_MIN = 12 * REM

function px(length: string | undefined): number | null {
  if (!length) return null
  const m = /^(\d+(?:\.\d+)?)(rem|px)$/.exec(length.trim())
  if (!m) return null
  return Number(m[1]) * (m[2] === 'rem' ? REM : 1)
}

/**
 * The narrowest the table may get: each fixed column's width (rem or px), each `auto` column's
 * minWidth (default 12rem), percentages counted as nothing (they scale with the table). Below
 * this the table scrolls inside its region rather than squeezing a column under its content.
 */
export function tableMinWidth(columns: ReadonlyArray<{ width?: string; minWidth?: string }>): number {
  let sum = 0
  for (const c of columns) {
    const fixed = px(c.width)
    if (fixed !== null) sum += fixed
    else if (!c.width || c.width === 'auto') sum += px(c.minWidth) ?? DEFAULT_AUTO_MIN
  }
  return sum
}

/** Cards on a phone's screen; the table on paper, whatever the window's width when printing began. */
export function usePhoneCards(): boolean {
  const phone = useMedia(PHONE_QUERY)
  const printing = usePrinting()
  return phone && !printing
}
