import { hostEntry, notAHost } from '../kernel/allowed-hosts.ts'
import { isIP } from 'node:net'

/**
 * The alerts' variables, each problem one line naming its variable (the server reports them all
 * at once with the others). Channels declared here live in memory under ids starting "env-" and
 * the Alerts page shows them as set by the server's configuration.
 */

export interface EnvChannel {
  id: 'env-webhook' | 'env-slack' | 'env-email'
  kind: 'webhook' | 'slack' | 'email'
  name: string
  target: string
  secret: string | null
  /** Named in ALERT_WITNESS: gets the access log's signed head. */
  witness?: boolean
}

export interface AlertsConfig {
  /** Base of the links a notice carries (no trailing slash); null: links are paths only. */
  publicUrl: string | null
  evalIntervalMs: number
  /** Hosts a webhook may reach although they resolve to a private or loopback address (lower case, `host` or `host:port`). */
  allowedHosts: string[]
  smtpUrl: string | null
  from: string | null
  envChannels: EnvChannel[]
}

export const ALERT_VARIABLES = [
  'PUBLIC_URL',
  'ALERT_EVAL_INTERVAL',
  'ALERT_ALLOWED_HOSTS',
  'ALERT_WEBHOOK_URL',
  'ALERT_WEBHOOK_SECRET',
  'ALERT_SLACK_URL',
  'ALERT_EMAIL_TO',
  'SMTP_URL',
  'ALERT_FROM',
  'ALERT_WITNESS',
] as const

/** A whsec_ secret: base64 of 24 to 64 random bytes (the Standard Webhooks range). */
export function secretProblem(secret: string): string | null {
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret)
  if (!m) return 'must be whsec_ followed by base64 (e.g. whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw)'
  const bytes = Buffer.from(m[1]!, 'base64').length
  if (bytes < 24 || bytes > 64) return `must hold 24 to 64 bytes after whsec_ (it holds ${bytes})`
  return null
}

/** An absolute http(s) URL with no user name or password in it; the reason when it is not. */
export function httpUrlProblem(raw: string): string | null {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return 'must be an absolute http(s) URL'
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must be an http(s) URL'
  if (u.username || u.password) return 'must not carry a user name or password'
  return null
}

const EMAIL = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/

/** Comma-separated addresses, each checked; the bad one's words when one is not an address. */
export function emailList(raw: string): { list: string[]; problem: string | null } {
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (list.length === 0) return { list, problem: 'must name at least one email address' }
  if (list.length > 20) return { list, problem: 'may name at most 20 addresses' }
  const bad = list.find((a) => !EMAIL.test(a) || a.length > 254)
  return { list, problem: bad ? `"${bad.slice(0, 80)}" is not an email address` : null }
}

/** Whether a URL's host is a loopback or private literal (checked at start; names are checked when sent). */
function privateLiteral(u: URL, problem: (address: string) => string | null): string | null {
  const host = u.hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return 'a loopback name'
  return isIP(host) ? problem(host) : null
}

export function parseAlertsConfig(
  env: Record<string, string | undefined>,
  addressProblem: (address: string) => string | null,
): { config: AlertsConfig | null; issues: string[] } {
  const get = (k: (typeof ALERT_VARIABLES)[number]) => {
    const v = env[k]?.trim()
    return v ? v : null
  }
  const issues: string[] = []

  const publicRaw = get('PUBLIC_URL')
  let publicUrl: string | null = null
  if (publicRaw) {
    const p = httpUrlProblem(publicRaw)
    if (p) issues.push(`PUBLIC_URL ${p}, e.g. https://switchboard.example.com`)
    else {
      const u = new URL(publicRaw)
      if (u.search || u.hash) issues.push('PUBLIC_URL must not carry a query or fragment')
      else publicUrl = publicRaw.replace(/\/+$/, '')
    }
  }

  let evalIntervalMs = 60_000
  const every = get('ALERT_EVAL_INTERVAL')
  if (every !== null) {
    if (!/^\d+$/.test(every) || Number(every) < 5 || Number(every) > 86_400)
      issues.push('ALERT_EVAL_INTERVAL must be a whole number of seconds between 5 and 86400 (default 60)')
    else evalIntervalMs = Number(every) * 1000
  }

  const allowedHosts: string[] = []
  for (const entry of (get('ALERT_ALLOWED_HOSTS') ?? '').split(',').map((h) => h.trim())) {
    if (!entry) continue
    const h = hostEntry(entry)
    if (!h) issues.push(notAHost('ALERT_ALLOWED_HOSTS', entry, 'hooks.lan, 10.0.0.8:8080'))
    else allowedHosts.push(h)
  }
  const allowed = (u: URL) => allowedHosts.includes(u.host.toLowerCase()) || allowedHosts.includes(u.hostname.toLowerCase())

  const envChannels: EnvChannel[] = []
  const urlVar = (name: 'ALERT_WEBHOOK_URL' | 'ALERT_SLACK_URL'): string | null => {
    const raw = get(name)
    if (!raw) return null
    const p = httpUrlProblem(raw)
    if (p) {
      issues.push(`${name} ${p}`)
      return null
    }
    const u = new URL(raw)
    const why = allowed(u) ? null : privateLiteral(u, addressProblem)
    if (why) {
      issues.push(`${name} points at ${why}; add its host to ALERT_ALLOWED_HOSTS to allow it`)
      return null
    }
    return raw
  }

  const hookUrl = urlVar('ALERT_WEBHOOK_URL')
  const secret = get('ALERT_WEBHOOK_SECRET')
  if (secret) {
    const p = secretProblem(secret)
    if (p) issues.push(`ALERT_WEBHOOK_SECRET ${p}`)
    if (!get('ALERT_WEBHOOK_URL')) issues.push('ALERT_WEBHOOK_SECRET is set but ALERT_WEBHOOK_URL is not; set both, or neither')
  } else if (get('ALERT_WEBHOOK_URL'))
    issues.push('ALERT_WEBHOOK_SECRET is required with ALERT_WEBHOOK_URL (whsec_ and base64, the key receivers verify with)')
  if (hookUrl && secret && !secretProblem(secret))
    envChannels.push({ id: 'env-webhook', kind: 'webhook', name: 'Webhook (server configuration)', target: hookUrl, secret })

  const slack = urlVar('ALERT_SLACK_URL')
  if (slack) envChannels.push({ id: 'env-slack', kind: 'slack', name: 'Slack (server configuration)', target: slack, secret: null })

  const smtpRaw = get('SMTP_URL')
  let smtpUrl: string | null = null
  if (smtpRaw) {
    let u: URL | null = null
    try {
      u = new URL(smtpRaw)
    } catch {
      /* reported below */
    }
    if (!u || (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') || !u.hostname)
      issues.push('SMTP_URL must be smtp://[user:password@]host[:port] (STARTTLS when offered) or smtps://… (TLS from the start)')
    else smtpUrl = smtpRaw
  }
  const fromRaw = get('ALERT_FROM')
  let from: string | null = null
  if (fromRaw) {
    const bare = /<([^>]+)>\s*$/.exec(fromRaw)?.[1] ?? fromRaw
    if (!EMAIL.test(bare) || /[\r\n]/.test(fromRaw))
      issues.push('ALERT_FROM must be an email address, e.g. Switchboard <alerts@example.com>')
    else from = fromRaw
  }
  if (smtpRaw && !fromRaw) issues.push('ALERT_FROM is required with SMTP_URL: the address notices are sent from')
  if (fromRaw && !smtpRaw) issues.push('ALERT_FROM is set but SMTP_URL is not; set SMTP_URL too, or unset ALERT_FROM')

  const to = get('ALERT_EMAIL_TO')
  if (to) {
    const { problem } = emailList(to)
    if (problem) issues.push(`ALERT_EMAIL_TO ${problem}`)
    if (!smtpRaw) issues.push('ALERT_EMAIL_TO needs SMTP_URL (and ALERT_FROM): the server that sends the mail')
    if (!problem && smtpUrl && from)
      envChannels.push({ id: 'env-email', kind: 'email', name: 'Email (server configuration)', target: to, secret: null })
  }

  const witnesses = witnessKinds(get('ALERT_WITNESS'), (name) => get(name) !== null, issues)
  for (const c of envChannels) if (witnesses.has(c.kind)) c.witness = true

  if (issues.length) return { config: null, issues }
  return { config: { publicUrl, evalIntervalMs, allowedHosts, smtpUrl, from, envChannels }, issues: [] }
}

const WITNESS_NEEDS = { webhook: 'ALERT_WEBHOOK_URL', slack: 'ALERT_SLACK_URL', email: 'ALERT_EMAIL_TO' } as const

/**
 * ALERT_WITNESS: which of the channels declared here are witnesses of the access log (webhook,
 * slack, email, comma-separated). Each must be declared too: a witness that does not exist would
 * leave the operator believing the heads are kept somewhere.
 */
function witnessKinds(raw: string | null, isSet: (name: (typeof WITNESS_NEEDS)[EnvChannel['kind']]) => boolean, issues: string[]) {
  const kinds = new Set<EnvChannel['kind']>()
  if (raw === null) return kinds
  for (const entry of raw.split(',').map((s) => s.trim().toLowerCase())) {
    if (!entry) continue
    if (!Object.hasOwn(WITNESS_NEEDS, entry)) {
      issues.push(
        `ALERT_WITNESS must list webhook, slack or email, comma-separated (e.g. webhook,email); "${entry.slice(0, 40)}" is none of them`,
      )
      continue
    }
    const kind = entry as EnvChannel['kind']
    if (!isSet(WITNESS_NEEDS[kind]))
      issues.push(`ALERT_WITNESS names ${kind}, but ${WITNESS_NEEDS[kind]} is not set: there is no such channel`)
    kinds.add(kind)
  }
  return kinds
}
