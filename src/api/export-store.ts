import { useSyncExternalStore } from 'react'

/**
 * The export jobs' state, on its own so the layout can know whether to show the tray without
 * loading the tray or the export code (src/api/export-jobs.ts) into the entry chunk.
 */
export type ExportJob = {
  id: number
  label: string
  fileName: string
  /** Rows expected when known (the search total, the index count). */
  total: number | null
  rows: number
  /** Bytes of the file received so far. */
  bytes: number
  startedAt: string
  /** Seconds left at the rate rows have arrived so far; null until there is a rate (or a total) to go by. */
  secondsLeft: number | null
} & (
  | { phase: 'running' }
  /** The server runs only so many exports at once: this one waits its turn there (1 = next) and starts by itself. */
  | { phase: 'queued'; position: number; startsInS: number | null }
  /** Before streaming: the number is still being indexed, and the export waits for the whole history. */
  | { phase: 'waiting'; indexed: number; of: number | null }
  /** The wait ended after the user left the page that started it: the download is offered, not started. */
  | { phase: 'ready' }
  /** The server sent the whole file to the browser's download manager. */
  | { phase: 'saved' }
  /** Stopped by the person (Cancel) or by the browser (its downloads list, a dropped connection). */
  | { phase: 'cancelled'; by: 'you' | 'browser' }
  | { phase: 'failed'; reason: string }
)

let jobs: ExportJob[] = []
const listeners = new Set<() => void>()
const emit = () => {
  listeners.forEach((l) => {
    l()
  })
}
export const update = (id: number, patch: Partial<ExportJob>) => {
  jobs = jobs.map((j) => (j.id === id ? ({ ...j, ...patch } as ExportJob) : j))
  emit()
}

export function useExportJobs(): ExportJob[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l)
      return () => listeners.delete(l)
    },
    () => jobs,
    () => jobs,
  )
}

export const getJobs = () => jobs
export function addJob(job: ExportJob) {
  jobs = [...jobs, job]
  emit()
}
export function removeJob(id: number) {
  jobs = jobs.filter((j) => j.id !== id)
  emit()
}
