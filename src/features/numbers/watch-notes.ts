import type { Endpoint } from '../../api/callback-endpoints'
import { numberDigits } from './audit'

/**
 * What the callback watch found wrong with a number's webhook or dlr, from its last check of each
 * address: failing (DNS, connection, TLS, 5xx, timeout), redirecting (providers do not follow a
 * redirect, so the callbacks are lost), or a certificate that expires within 14 days. The browser
 * audit above judges the URL's text; these judge what the address did when it was called.
 */
export type WatchNoteKind = 'failing' | 'redirect' | 'cert'

export interface WatchNote {
  target: 'webhook' | 'dlr'
  kind: WatchNoteKind
}

/** A certificate this close to expiry is worth the owner's attention now (the watch flags 30, 14 and 7 days). */
const CERT_DAYS = 14

const TARGET_WORDS = { webhook: 'Webhook', dlr: 'DLR' } as const
const KIND_WORDS: Record<WatchNoteKind, string> = {
  failing: 'endpoint failing',
  redirect: 'redirects',
  cert: `certificate expires within ${CERT_DAYS} days`,
}

export const watchNoteWords = (n: WatchNote) => `${TARGET_WORDS[n.target]}: ${KIND_WORDS[n.kind]}`

function kindOf(e: Endpoint): WatchNoteKind | null {
  const c = e.latest
  if (!c) return null
  if (c.outcome === 'failing') return 'failing'
  if (c.outcome === 'redirect') return 'redirect'
  if (c.tlsDays !== null && c.tlsDays <= CERT_DAYS) return 'cert'
  return null
}

/** Each number's notes (keyed by its digits), webhook first; numbers with none are absent. */
export function watchNotesByNumber(endpoints: readonly Endpoint[]): Map<string, WatchNote[]> {
  const out = new Map<string, WatchNote[]>()
  const add = (number: string, note: WatchNote) => {
    const d = numberDigits(number)
    let list = out.get(d)
    if (!list) out.set(d, (list = []))
    if (!list.some((n) => n.target === note.target && n.kind === note.kind)) list.push(note)
  }
  for (const e of endpoints) {
    const kind = kindOf(e)
    if (!kind) continue
    for (const n of e.webhookOf) add(n, { target: 'webhook', kind })
    for (const n of e.dlrOf) add(n, { target: 'dlr', kind })
  }
  for (const list of out.values()) list.sort((a, b) => (a.target === b.target ? 0 : a.target === 'webhook' ? -1 : 1))
  return out
}
