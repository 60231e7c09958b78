import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { z } from 'zod'

/** One line naming the variable, so a start-up failure says what to fix. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

const intString = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be between ${min} and ${max}`)

const baseUrl = z
  .string()
  .trim()
  .refine((v) => {
    try {
      const u = new URL(v)
      return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.search && !u.hash
    } catch {
      return false
    }
  }, 'API_BASE_URL must be an absolute http(s) URL without credentials, query or fragment, e.g. https://api.example.com')
  .transform((v) => v.replace(/\/+$/, ''))

const schema = z
  .object({
    API_BASE_URL: baseUrl.optional(),
    API_SYS_ID: z.string().trim().min(1, 'API_SYS_ID must not be empty').optional(),
    API_AUTH_TOKEN: z.string().trim().min(1, 'API_AUTH_TOKEN must not be empty').optional(),
    API_TIMEOUT_MS: intString('API_TIMEOUT_MS', 100, 600_000).default(10_000),
    HOST: z.string().trim().min(1, 'HOST must not be empty').default('127.0.0.1'),
    PORT: intString('PORT', 0, 65_535).default(5173),
    HISTORY_PAGE_CAP: intString('HISTORY_PAGE_CAP', 1, 100_000).default(1000),
    ALLOWED_HOSTS: z
      .string()
      .default('')
      .transform((v) =>
        v
          .split(',')
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean),
      ),
    SIMULATOR_ACCOUNT: z.enum(['demo', 'large'], { message: 'SIMULATOR_ACCOUNT must be demo or large' }).default('demo'),
    LOG_REQUESTS: z.enum(['0', '1'], { message: 'LOG_REQUESTS must be 0 or 1' }).default('1'),
  })
  .superRefine((env, ctx) => {
    if (env.API_BASE_URL) {
      if (!env.API_SYS_ID) ctx.addIssue({ code: 'custom', path: ['API_SYS_ID'], message: 'API_SYS_ID is required when API_BASE_URL is set' })
      if (!env.API_AUTH_TOKEN)
        ctx.addIssue({ code: 'custom', path: ['API_AUTH_TOKEN'], message: 'API_AUTH_TOKEN is required when API_BASE_URL is set' })
    }
  })

export interface Upstream {
  /** `null` means: start the embedded simulator and use it. */
  baseUrl: string | null
  sysId: string
  authToken: string
}

export interface Config {
  upstream: Upstream
  timeoutMs: number
  host: string
  port: number
  historyPageCap: number
  allowedHosts: string[]
  simulatorAccount: 'demo' | 'large'
  logRequests: boolean
}

/** Minimal .env reader: KEY=VALUE lines, # comments, optional quotes. Real environment wins. */
export function readDotEnv(path: string): Record<string, string> {
  if (!existsSync(path)) return {}
  const out: Record<string, string> = {}
  for (const raw of readFileSync(path, 'utf8').split(/\r?\n/)) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const eq = line.indexOf('=')
    if (eq < 1) continue
    const key = line.slice(0, eq).trim()
    let value = line.slice(eq + 1).trim()
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1)
    out[key] = value
  }
  return out
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // Empty strings mean "unset", as shells and .env files commonly write them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const result = schema.safeParse(cleaned)
  if (!result.success) {
    const issue = result.error.issues[0]
    const name = issue?.path[0] ? String(issue.path[0]) : 'configuration'
    const message = issue?.message ?? 'invalid'
    throw new ConfigError(message.includes(name) ? `Configuration error: ${message}` : `Configuration error: ${name}: ${message}`)
  }
  const e = result.data
  return {
    upstream: e.API_BASE_URL
      ? { baseUrl: e.API_BASE_URL, sysId: e.API_SYS_ID ?? '', authToken: e.API_AUTH_TOKEN ?? '' }
      : { baseUrl: null, sysId: '', authToken: '' },
    timeoutMs: e.API_TIMEOUT_MS,
    host: e.HOST,
    port: e.PORT,
    historyPageCap: e.HISTORY_PAGE_CAP,
    allowedHosts: e.ALLOWED_HOSTS,
    simulatorAccount: e.SIMULATOR_ACCOUNT,
    logRequests: e.LOG_REQUESTS === '1',
  }
}

export function loadConfig(root = process.cwd(), env: NodeJS.ProcessEnv = process.env): Config {
  return parseConfig({ ...readDotEnv(resolve(root, '.env')), ...env })
}
