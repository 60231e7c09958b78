import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../app.ts'
import { parseConfig } from '../config.ts'
import { openDb, type OpenedDb } from '../db/open.ts'
import { accessOnOpen } from '../access/on-open.ts'
import { createForwarder } from '../forward.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { createSimulator } from '../simulator/simulator.ts'
import { createAccess, type Access, type AccessDeps } from '../access/access.ts'
import { accessConfigFrom } from '../access/config.ts'
import type { ScryptParams } from '../access/passwords.ts'
import { freshPgliteDir } from './pglite-template.ts'

/**
 * Test plumbing for team access: both database engines (PGlite in a temp dir, and a throwaway
 * PostgreSQL server from scripts/pg-cluster.mjs), and the real app (createApp with the gate) on
 * an ephemeral loopback port in front of the embedded simulator.
 */

/** Cheap hashes for tests that sign in many times; the default cost has its own test. */
export const TEST_SCRYPT: ScryptParams = { N: 2 ** 10, r: 8, p: 1 }

export interface Engine {
  name: 'pglite' | 'postgres'
  /** `another` opens a second, independent connection to the same database (a second server), where the engine allows it. */
  open: () => Promise<{ db: OpenedDb; close: () => Promise<void>; another?: () => Promise<OpenedDb> }>
}

interface Cluster {
  url: string
  stop: () => void
}

export const ENGINES: Engine[] = [
  {
    name: 'pglite',
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sb-access-'))
      await freshPgliteDir(join(dir, 'data'))
      const db = await openDb({ dataDir: join(dir, 'data'), onOpen: [accessOnOpen] })
      return {
        db,
        close: async () => {
          await db.close()
          rmSync(dir, { recursive: true, force: true })
        },
      }
    },
  },
  {
    name: 'postgres',
    open: async () => {
      // A path in a variable: the helper is plain JavaScript without type declarations.
      const helper = '../../scripts/pg-cluster.mjs'
      const { startCluster } = (await import(/* @vite-ignore */ helper)) as { startCluster: () => Promise<Cluster> }
      const cluster = await startCluster()
      try {
        const db = await openDb({ databaseUrl: cluster.url, onOpen: [accessOnOpen] })
        return {
          db,
          another: () => openDb({ databaseUrl: cluster.url, onOpen: [accessOnOpen] }),
          close: async () => {
            await db.close()
            cluster.stop()
          },
        }
      } catch (err) {
        cluster.stop()
        throw err
      }
    },
  },
]

export async function clearAccessTables(db: OpenedDb): Promise<void> {
  await db.query('TRUNCATE users, sessions, signin_limits, access_log RESTART IDENTITY CASCADE')
  await db.query("UPDATE access_log_head SET seq = 0, hash = repeat('0', 64)")
}

export interface Stack {
  port: number
  access: Access
  clock: { now: number }
  logs: string[]
  close: () => Promise<void>
}

/** The app with team access on an ephemeral port, an embedded simulator upstream, a movable clock. */
export async function startStack(
  db: OpenedDb,
  env: Record<string, string>,
  opts: Pick<AccessDeps, 'limits' | 'onPasswordCheck'> = {},
): Promise<Stack> {
  const sim = createSimulator()
  const upstream = await sim.listen(0, '127.0.0.1')
  const config = parseConfig({
    API_BASE_URL: upstream.url,
    API_SYS_ID: DEMO_CREDENTIALS.sysId,
    API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
    PORT: '0',
    LOG_REQUESTS: '0',
  })
  const forwarder = createForwarder(
    { baseUrl: upstream.url, sysId: DEMO_CREDENTIALS.sysId, authToken: DEMO_CREDENTIALS.authToken },
    config.timeoutMs,
  )
  const clock = { now: Date.parse('2026-06-01T09:00:00Z') }
  const logs: string[] = []
  const access = createAccess(accessConfigFrom(env), { db, now: () => clock.now, scrypt: TEST_SCRYPT, log: (l) => logs.push(l), ...opts })
  await access.flush()
  const app = createApp(config, { forwarder, gate: access, log: (l) => logs.push(l) })
  const server: Server = createServer((req, res) => app(req, res))
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  return {
    port: (server.address() as AddressInfo).port,
    access,
    clock,
    logs,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
      await access.close()
      await forwarder.close()
      upstream.server.closeAllConnections()
      await new Promise<void>((ok) => upstream.server.close(() => ok()))
    },
  }
}

export interface Answer {
  status: number
  headers: IncomingHttpHeaders
  text: string
  json: () => { error?: { kind: string; message: string; field?: string; retryAfterMs?: number }; [k: string]: unknown }
}

/** One HTTP request over a real socket, headers exactly as given (plus Host). */
export function call(
  port: number,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; json?: unknown; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = opts.json !== undefined ? JSON.stringify(opts.json) : opts.body
    const headers: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    }
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) })
      })
    })
    req.on('error', reject)
    if (body !== undefined) req.write(body)
    req.end()
  })
}

/** `sb_session=…` from a Set-Cookie answer, ready for a Cookie header. */
export function cookieFrom(a: Answer): string {
  const set = a.headers['set-cookie']?.[0] ?? ''
  return set.split(';')[0] ?? ''
}

export const HISTORY = { number: '18323232323', tid: 'PUHMGWS98301' }
