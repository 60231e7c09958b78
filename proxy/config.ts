import { allowedHostsVariable } from './kernel/allowed-hosts.ts'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseEnv } from 'node:util'
import { z } from 'zod'

/** Every configuration problem, one line each naming its variable, so one start-up says all there is to fix. */
export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(readonly problems: string[]) {
    super(problems.map((p) => `Configuration error: ${p}`).join('\n'))
  }
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

const mediaAllowedHosts = allowedHostsVariable('MEDIA_ALLOWED_HOSTS', 'media.lan, 10.0.0.8:8080, [fd00::8]')

const schema = z.object({
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
  // A seed: the embedded simulator's demo breaks on its own on a schedule (proxy/simulator/scenario.ts).
  SIMULATOR_SCENARIO: intString('SIMULATOR_SCENARIO', 0, 999_999_999).optional(),
  LOG_REQUESTS: z.enum(['0', '1'], { message: 'LOG_REQUESTS must be 0 or 1' }).default('1'),
  MEDIA_ALLOWED_HOSTS: mediaAllowedHosts,
  MEDIA_MAX_BYTES: intString('MEDIA_MAX_BYTES', 1024, 100 * 1024 * 1024).default(10 * 1024 * 1024),
  MEDIA_TIMEOUT_MS: intString('MEDIA_TIMEOUT_MS', 100, 120_000).default(15_000),
})

/**
 * Rules across variables, checked on the raw values beside the schema (zod skips an object's
 * refinements once a field has failed, and every problem must be reported at once).
 */
function crossProblems(env: Record<string, string>): string[] {
  const set = (name: string) => (env[name] ?? '').trim() !== ''
  const problems: string[] = []
  if (set('API_BASE_URL')) {
    for (const name of ['API_SYS_ID', 'API_AUTH_TOKEN']) if (!set(name)) problems.push(`${name} is required when API_BASE_URL is set`)
  } else {
    // Credentials without an address would be silently ignored (the simulator would answer): say so instead.
    for (const name of ['API_SYS_ID', 'API_AUTH_TOKEN'])
      if (set(name)) problems.push(`${name} is set but API_BASE_URL is not; set API_BASE_URL too, or unset ${name} to use the simulator`)
  }
  return problems
}

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
  /** The seed of the embedded simulator's scenario (a webhook broken and a failure spike on a schedule); null: off. */
  simulatorScenario: number | null
  logRequests: boolean
  /** What /api/media fetches: private hosts it may reach beyond the upstream's own, and its limits. */
  media: { allowedHosts: string[]; maxBytes: number; timeoutMs: number }
}

/** The .env file parsed by Node's own reader (util.parseEnv), or nothing when there is no file. */
export function readDotEnv(path: string): Record<string, string> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw err
  }
  return parseEnv(text) as Record<string, string>
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // Empty strings mean "unset", as shells and .env files commonly write them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const result = schema.safeParse(cleaned)
  const problems = [
    ...(result.error?.issues ?? []).map((issue) => {
      const name = issue.path[0] !== undefined ? String(issue.path[0]) : 'configuration'
      // Messages name their variable; zod's own (e.g. a wrong type) get the name put in front.
      return issue.message.includes(name) ? issue.message : `${name}: ${issue.message}`
    }),
    ...crossProblems(cleaned as Record<string, string>),
  ]
  if (!result.success || problems.length > 0) throw new ConfigError(problems)
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
    simulatorScenario: e.SIMULATOR_SCENARIO ?? null,
    logRequests: e.LOG_REQUESTS === '1',
    media: { allowedHosts: e.MEDIA_ALLOWED_HOSTS, maxBytes: e.MEDIA_MAX_BYTES, timeoutMs: e.MEDIA_TIMEOUT_MS },
  }
}

export function loadConfig(root = process.cwd(), env: NodeJS.ProcessEnv = process.env): Config {
  return parseConfig({ ...readDotEnv(resolve(root, '.env')), ...env })
}
