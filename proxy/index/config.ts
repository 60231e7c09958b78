import { z } from 'zod'

/**
 * The message index's settings, from the environment. Every problem is reported at once, each
 * naming its variable, so the lead can merge them into the server's start-up report.
 */

export interface IndexConfig {
  enabled: boolean
  /** PGlite's data directory (customer messages: owner-only). */
  dataDir: string
  /** A PostgreSQL server instead of PGlite. */
  databaseUrl: string | null
  /** Connections this server keeps to that PostgreSQL server (half of them at most for background work). */
  databasePoolSize: number
  /** Numbers synced at once. */
  syncConcurrency: number
  /** Upstream requests per second for syncing; 0 = unlimited (bench). */
  syncRate: number
  /** Re-sync indexed numbers every so many seconds; 0 = off. */
  syncIntervalS: number
  /** Records per history request (the server's HISTORY_PAGE_CAP). */
  pageCap: number
  /** Index exports one person may run at once, and the server at once (more wait in line). */
  exportsPerUser: number
  exportsMax: number
  /** Exports that may wait for a slot (more answer 429); 0 refuses at once, as without a queue. */
  exportsQueue: number
  /** How long an export's reader may take nothing before the export is cut and its turn freed (EXPORT_STALL_S). */
  exportStallMs: number
  /** Index every number of the account in the background when the index has never listed it. */
  autoSync: boolean
}

const whole = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be between ${min} and ${max}`)

const schema = z.object({
  INDEX: z.enum(['on', 'off'], { message: 'INDEX must be on or off' }).default('on'),
  DATA_DIR: z.string().trim().min(1, 'DATA_DIR must not be empty').default('.switchboard-data'),
  DATABASE_URL: z
    .string()
    .trim()
    .refine((v) => {
      try {
        const u = new URL(v)
        return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && !!u.hostname
      } catch {
        return false
      }
    }, 'DATABASE_URL must be a postgres:// URL, e.g. postgres://user:password@db.example:5432/switchboard')
    .optional(),
  // Small: the server's one thread answers every query. On 2 cores, 50 clients searching 300,000
  // messages answered 1,956 and 1,973 a second with 4 connections against 1,835 and 1,814 with 10,
  // and /api/meta's p99 beside them 15 and 16 ms against 23 and 35 (docs/performance.md).
  DATABASE_POOL_SIZE: whole('DATABASE_POOL_SIZE', 2, 100).default(4),
  SYNC_CONCURRENCY: whole('SYNC_CONCURRENCY', 1, 16).default(2),
  SYNC_RATE: whole('SYNC_RATE', 0, 10_000).default(10),
  SYNC_INTERVAL_S: whole('SYNC_INTERVAL_S', 0, 7 * 86_400).default(0),
  HISTORY_PAGE_CAP: whole('HISTORY_PAGE_CAP', 1, 100_000).default(1000),
  EXPORTS_PER_USER: whole('EXPORTS_PER_USER', 1, 100).default(2),
  EXPORTS_MAX: whole('EXPORTS_MAX', 1, 1000).default(4),
  EXPORTS_QUEUE: whole('EXPORTS_QUEUE', 0, 10_000).default(20),
  // A reader that takes nothing for this long is cut and its export turn freed (exports/gate.ts).
  EXPORT_STALL_S: whole('EXPORT_STALL_S', 1, 3_600).default(60),
  INDEX_AUTO_SYNC: z.enum(['on', 'off'], { message: 'INDEX_AUTO_SYNC must be on or off' }).default('on'),
})

export interface IndexConfigIssue {
  variable: string
  message: string
}

/** Parses the index's variables; `issues` lists every problem (then `config` is null). */
export function parseIndexConfigResult(env: Record<string, string | undefined>): {
  config: IndexConfig | null
  issues: IndexConfigIssue[]
} {
  // Empty strings mean "unset", as shells and .env files commonly write them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const r = schema.safeParse(cleaned)
  if (!r.success) {
    const issues = r.error.issues.map((i) => {
      const variable = i.path[0] ? String(i.path[0]) : 'configuration'
      return { variable, message: i.message.includes(variable) ? i.message : `${variable}: ${i.message}` }
    })
    return { config: null, issues }
  }
  const e = r.data
  if (e.EXPORTS_PER_USER > e.EXPORTS_MAX)
    return {
      config: null,
      issues: [
        {
          variable: 'EXPORTS_PER_USER',
          message: `EXPORTS_PER_USER (${e.EXPORTS_PER_USER}) must not exceed EXPORTS_MAX (${e.EXPORTS_MAX})`,
        },
      ],
    }
  return {
    config: {
      enabled: e.INDEX === 'on',
      dataDir: e.DATA_DIR,
      databaseUrl: e.DATABASE_URL ?? null,
      databasePoolSize: e.DATABASE_POOL_SIZE,
      syncConcurrency: e.SYNC_CONCURRENCY,
      syncRate: e.SYNC_RATE,
      syncIntervalS: e.SYNC_INTERVAL_S,
      pageCap: e.HISTORY_PAGE_CAP,
      exportsPerUser: e.EXPORTS_PER_USER,
      exportsMax: e.EXPORTS_MAX,
      exportsQueue: e.EXPORTS_QUEUE,
      exportStallMs: e.EXPORT_STALL_S * 1000,
      autoSync: e.INDEX_AUTO_SYNC === 'on',
    },
    issues: [],
  }
}

export class IndexConfigError extends Error {
  override name = 'IndexConfigError'
  constructor(readonly issues: IndexConfigIssue[]) {
    super(`Configuration error: ${issues.map((i) => i.message).join('; ')}`)
  }
}

/** Throws IndexConfigError (its `issues` list every problem) when a variable is wrong. */
export function parseIndexConfig(env: Record<string, string | undefined>): IndexConfig {
  const { config, issues } = parseIndexConfigResult(env)
  if (!config) throw new IndexConfigError(issues)
  return config
}
