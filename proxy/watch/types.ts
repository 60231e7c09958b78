import type { Outcome } from '../../contract/watch-api.ts'

/**
 * What the watch tells the rest of the server: a finding, handed to the `onFinding` hook the
 * composition root gives openWatch (alerts react to it; the watch knows nothing of them).
 */

export type FindingKind = 'callback.changed' | 'endpoint.failing' | 'endpoint.recovered' | 'cert.expiring'

export interface WatchFinding {
  kind: FindingKind
  /** The number whose callback changed (callback.changed). */
  number?: string
  /** The callback URL the finding is about, as listed (it may carry a secret in its query: mask before showing). */
  url?: string
  /** What happened, in words. */
  detail: string
  /** When it was seen (ISO 8601). */
  at: string
}

export type OnFinding = (finding: WatchFinding) => void

/** One number as one listing shows it. */
export interface ListedEntry {
  number: string
  tid: string
  type: string
  webhook: string
  dlr: string
}

/** A number as the watch keeps it between listings: its last entry's values and every tid it was listed under. */
export interface NumberState {
  number: string
  tid: string
  tids: string[]
  type: string
  webhook: string
  dlr: string
}

export type ChangeKind = 'added' | 'removed' | 'webhook' | 'dlr' | 'tid' | 'type' | 'listed-twice' | 'listed-once'

export interface Change {
  number: string
  kind: ChangeKind
  from: string | null
  to: string | null
}

/** What a check found (the browser reads the same words). */
export type { Outcome }
export type Failure = 'dns' | 'connection' | 'tls' | 'http' | 'timeout'

/** Outcomes under which a callback is lost: the provider's request fails or is not followed. */
export const isDown = (o: Outcome) => o === 'failing' || o === 'redirect'
