import { useEffect, useSyncExternalStore, type ReactElement } from 'react'
import type { RowData } from '@tanstack/react-table'
import type { EngineProps } from './table-view'

/** The engine ./measured-table registers: a table of measured rows over the same props as the fixed one. */
export type MeasuredEngine = <TData extends RowData>(props: EngineProps<TData>) => ReactElement

/**
 * The measuring row engine (TanStack Virtual, about 11 KiB gzip) is not in the entry chunk: the
 * numbers list on a wide screen has rows of one height and needs only arithmetic. Pages whose
 * rows grow with their content import ./measured-table themselves, so it arrives with their chunk
 * (and the server's preload hint for it); a narrow screen, whose cards are measured, starts
 * loading it at boot (main.tsx). Until it is here, VirtualTable shows the first rows unmeasured.
 */
let engine: MeasuredEngine | null = null
let loading: Promise<void> | null = null
const listeners = new Set<() => void>()

/** Called by ./measured-table when it is evaluated, whether it came with a page or on its own. */
export function registerMeasuredTable(table: MeasuredEngine) {
  engine = table
  for (const l of listeners) l()
}

/** Fetch the measuring engine (once; a failed fetch may be tried again). */
export function loadMeasuredRows(): Promise<void> {
  loading ??= import('./measured-table').then(
    () => undefined,
    (err: unknown) => {
      loading = null
      throw err
    },
  )
  return loading
}

const subscribe = (l: () => void) => {
  listeners.add(l)
  return () => listeners.delete(l)
}
const current = () => engine

/** The measuring engine once it is here (null until then), fetched as soon as `needed`. */
export function useMeasuredEngine(needed: boolean): MeasuredEngine | null {
  const table = useSyncExternalStore(subscribe, current, current)
  useEffect(() => {
    if (needed && !engine) loadMeasuredRows().catch(() => undefined)
  }, [needed])
  return table
}
