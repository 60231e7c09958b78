import type { RuleId } from './rules.ts'

/** What a rule found to hold now, about one subject (the dedup key with the rule). */
export interface Condition {
  rule: RuleId
  /** What it is about: an owned number, an endpoint URL, or "all". */
  subject: string
  number: string | null
  title: string
  /** What happened, in words, without message bodies or customer phones. */
  detail: string
  count: number | null
  /** A path in the app (joined to PUBLIC_URL in a notice) to the rows behind it. */
  link: string | null
  /** Customer phones behind it, for channels with details turned on only. */
  phones?: string[]
}

/** One alert as a notice carries it. */
export interface NoticeAlert {
  id: string
  subject: string
  number: string | null
  title: string
  detail: string
  count: number | null
  since: string
  resolvedAt: string | null
  link: string | null
  phones?: string[]
}

/**
 * The access log's head as the server signed it (proxy/access/signed-heads.ts), handed over by the
 * composition root: `sig` is the base64 Ed25519 signature of the text
 * "switchboard access-log head\n<seq>\n<hash>\n<at>\n", and `publicKey` (SPKI PEM) verifies it,
 * so whoever keeps it can check it offline. The four head fields are one line of the server's heads
 * file, which `npm run users -- verify-log --anchor` reads.
 */
export interface LogHead {
  seq: string
  hash: string
  at: string
  sig: string
  publicKey: string
}

/** A notice as decided and stored in the outbox (rendered for its channel when sent). */
export interface Notice {
  type: 'alert.firing' | 'alert.reminder' | 'alert.resolved' | 'alert.test' | 'log.head'
  rule: string
  ruleTitle: string
  urgent: boolean
  at: string
  alerts: NoticeAlert[]
  /** The Alerts page. */
  link: string | null
  /** A witness notice's one content (its `alerts` is empty): no customer data, nothing but the signed head. */
  head?: LogHead
}

/** The outbox's kinds of notice (alert_outbox.kind). */
export type NoticeKind = 'firing' | 'reminder' | 'resolved' | 'test' | 'witness'

export type ChannelKind = 'webhook' | 'slack' | 'email'

export interface Channel {
  id: string
  kind: ChannelKind
  name: string
  target: string
  secret: string | null
  enabled: boolean
  details: boolean
  /** Gets the access log's signed head daily and on an admin's demand. */
  witness: boolean
  quietStart: number | null
  quietEnd: number | null
  quietZone: string
  source: 'ui' | 'env'
}

/** The outcome of one attempt. */
export interface Delivery {
  ok: boolean
  status: number | null
  ms: number
  error: string | null
}
