import { BlockList, isIP } from 'node:net'
import { z } from 'zod'

/**
 * Team access settings. Every problem is reported at once, each naming its variable,
 * so a start-up failure lists everything to fix in one go.
 */

export type AccessMode = 'local' | 'password' | 'header'

export interface AccessConfig {
  mode: AccessMode
  /** Lower-cased header name, e.g. 'x-forwarded-email' (header mode only). */
  authHeader: string | null
  /** Connections from these addresses may assert AUTH_HEADER and X-Forwarded-For. */
  trustedProxies: TrustedProxies
  /** Identities with the admin role in header mode (lower-cased). */
  admins: ReadonlySet<string>
  /** Behind an HTTPS proxy: cookies are Secure, X-Forwarded-For from a trusted proxy is the client. */
  trustProxy: boolean
  sessionIdleMs: number
  sessionMaxMs: number
  accessLogRetainDays: number
  /** An Ed25519 key outside DATA_DIR: the server signs the access log's head with it (signed-heads.ts). */
  logSigningKeyFile: string | null
}

export interface TrustedProxies {
  /** The list as written, for messages. */
  entries: readonly string[]
  has: (address: string) => boolean
}

/** `::ffff:10.0.0.1` (IPv4 on a dual-stack socket) is 10.0.0.1. */
export function normaliseAddress(address: string | undefined): string {
  if (!address) return ''
  const a = address.trim().toLowerCase()
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a)
  return mapped ? (mapped[1] ?? a) : a
}

function parseTrusted(text: string): { proxies: TrustedProxies; bad: string[] } {
  const list = new BlockList()
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const bad: string[] = []
  for (const entry of entries) {
    const [ip, bits, extra] = entry.split('/')
    const family = isIP(normaliseAddress(ip))
    if (!ip || family === 0 || extra !== undefined) {
      bad.push(entry)
      continue
    }
    const type = family === 4 ? 'ipv4' : 'ipv6'
    if (bits === undefined) {
      list.addAddress(normaliseAddress(ip), type)
      continue
    }
    const prefix = /^\d{1,3}$/.test(bits) ? Number(bits) : NaN
    if (!(prefix >= 0 && prefix <= (family === 4 ? 32 : 128))) {
      bad.push(entry)
      continue
    }
    list.addSubnet(normaliseAddress(ip), prefix, type)
  }
  return {
    bad,
    proxies: {
      entries,
      has: (address) => {
        const a = normaliseAddress(address)
        const family = isIP(a)
        if (family === 0) return false
        return list.check(a, family === 4 ? 'ipv4' : 'ipv6')
      },
    },
  }
}

const whole = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be between ${min} and ${max}`)
    // zod 4: the default is an output value and skips the checks above.
    .default(fallback)

// An HTTP header name is an RFC 9110 token.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

const schema = z.object({
  ACCESS: z.enum(['local', 'password', 'header'], { message: 'ACCESS must be local, password or header' }).default('local'),
  AUTH_HEADER: z.string().trim().regex(HEADER_NAME, 'AUTH_HEADER must be an HTTP header name, e.g. X-Forwarded-Email').optional(),
  TRUSTED_PROXIES: z.string().default(''),
  ADMINS: z.string().default(''),
  TRUST_PROXY: z.enum(['0', '1'], { message: 'TRUST_PROXY must be 0 or 1' }).default('0'),
  SESSION_IDLE_MIN: whole('SESSION_IDLE_MIN', 1, 7 * 24 * 60, 30),
  SESSION_MAX_HOURS: whole('SESSION_MAX_HOURS', 1, 24 * 90, 12),
  ACCESS_LOG_RETAIN_DAYS: whole('ACCESS_LOG_RETAIN_DAYS', 1, 36_500, 365),
  LOG_SIGNING_KEY_FILE: z.string().trim().optional(),
})

const VARIABLES = Object.keys(schema.shape)

export type AccessConfigResult = { ok: true; config: AccessConfig; issues: [] } | { ok: false; config: null; issues: string[] }

/**
 * Read the access variables from `env`. Empty strings mean unset (as shells and .env files
 * write them). Returns every issue, one line each naming its variable.
 */
export function parseAccessConfig(env: Record<string, string | undefined>): AccessConfigResult {
  const picked = Object.fromEntries(VARIABLES.flatMap((k) => (env[k] !== undefined && env[k] !== '' ? [[k, env[k]]] : [])))
  const issues: string[] = []
  const result = schema.safeParse(picked)
  if (!result.success) {
    for (const issue of result.error.issues) {
      const name = issue.path[0] ? String(issue.path[0]) : 'access configuration'
      issues.push(issue.message.includes(name) ? issue.message : `${name}: ${issue.message}`)
    }
  }
  const trusted = parseTrusted(typeof picked.TRUSTED_PROXIES === 'string' ? picked.TRUSTED_PROXIES : '')
  if (trusted.bad.length)
    issues.push(
      `TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges; not understood: ${trusted.bad.map((b) => JSON.stringify(b.slice(0, 60))).join(', ')}`,
    )
  if (!result.success) return { ok: false, config: null, issues }
  const e = result.data
  if (e.ACCESS === 'header') {
    if (!e.AUTH_HEADER)
      issues.push('AUTH_HEADER is required with ACCESS=header (the identity header your single-sign-on proxy sets, e.g. X-Forwarded-Email)')
    if (trusted.proxies.entries.length === 0)
      issues.push(
        'TRUSTED_PROXIES is required with ACCESS=header (the addresses of the single-sign-on proxy); without it no request could be trusted',
      )
  }
  if (e.TRUST_PROXY === '1' && trusted.proxies.entries.length === 0)
    issues.push('TRUSTED_PROXIES is required with TRUST_PROXY=1 (X-Forwarded-For is only believed from the proxies listed there)')
  if (e.SESSION_IDLE_MIN * 60 > e.SESSION_MAX_HOURS * 3600) issues.push('SESSION_IDLE_MIN must not be longer than SESSION_MAX_HOURS')
  if (issues.length) return { ok: false, config: null, issues }
  return {
    ok: true,
    issues: [],
    config: {
      mode: e.ACCESS,
      authHeader: e.AUTH_HEADER ? e.AUTH_HEADER.toLowerCase() : null,
      trustedProxies: trusted.proxies,
      admins: new Set(
        e.ADMINS.split(',')
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      ),
      trustProxy: e.TRUST_PROXY === '1',
      sessionIdleMs: e.SESSION_IDLE_MIN * 60_000,
      sessionMaxMs: e.SESSION_MAX_HOURS * 3_600_000,
      accessLogRetainDays: e.ACCESS_LOG_RETAIN_DAYS,
      logSigningKeyFile: e.LOG_SIGNING_KEY_FILE ? e.LOG_SIGNING_KEY_FILE : null,
    },
  }
}

/** For tests and scripts: the config, or an Error listing every issue. */
export function accessConfigFrom(env: Record<string, string | undefined>): AccessConfig {
  const r = parseAccessConfig(env)
  if (!r.ok) throw new Error(`Configuration error:\n${r.issues.join('\n')}`)
  return r.config
}

function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost' || h.endsWith('.localhost')) return true
  const a = normaliseAddress(h)
  if (isIP(a) === 4) return a.startsWith('127.')
  return a === '::1'
}

/**
 * Issue 15, "Access modes": with ACCESS=local the server must answer on loopback only. Started on
 * any other HOST (0.0.0.0, ::, a LAN address, a name) without a sign-in mode, it refuses to start
 * with this one line. Null when the combination is safe.
 */
export function checkExposure(host: string, access: AccessMode): string | null {
  if (access !== 'local' || isLoopback(host)) return null
  return `Refusing to start: HOST=${host} reaches beyond this machine, but ACCESS=local has no sign-in. Set ACCESS=password (or ACCESS=header behind a single-sign-on proxy), or HOST=127.0.0.1.`
}
