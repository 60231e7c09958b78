import { z } from 'zod'
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs'
import { connect, type AddressInfo } from 'node:net'
import { createApp, type AppDeps } from '../app.ts'
import { freshPgliteDir } from './pglite-template.ts'
import { parseConfig } from '../config.ts'
import { createForwarder } from '../forward.ts'
import { openRooms, roomsConfigIssues, type Rooms } from '../rooms.ts'
import { start, type Running } from '../server.ts'
import { DEMO_CREDENTIALS } from '../simulator/dataset.ts'
import { createSimulator } from '../simulator/simulator.ts'
import type { AccessGate, Principal } from '../http-types.ts'
import type { RouteSchema } from '../schema.ts'

/** A recording stub upstream: every request it receives, and a programmable answer. */
/** A test route's schema that takes any query parameters (the route under test reads them itself). */
export const ANY_QUERY: RouteSchema = { querystring: z.record(z.string(), z.unknown()) }

export interface Recorded {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

export async function stubUpstream(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const received: Recorded[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      answer(req, res, body)
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    received,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections()
        server.close(() => ok())
      }),
  }
}

export const TOKEN = 'SENTINEL-tok-5f2e9a'
export const SYS_ID = 'acct-42'

/** The proxy app on an ephemeral port in front of `upstreamUrl`. */
export async function proxyFor(
  upstreamUrl: string,
  env: Record<string, string> = {},
  deps: Pick<AppDeps, 'routes' | 'gate' | 'meta' | 'staticDir'> = {},
) {
  const config = parseConfig({
    API_BASE_URL: upstreamUrl,
    API_SYS_ID: SYS_ID,
    API_AUTH_TOKEN: TOKEN,
    API_TIMEOUT_MS: '400',
    PORT: '0',
    ...env,
  })
  const forwarder = createForwarder({ baseUrl: upstreamUrl, sysId: SYS_ID, authToken: TOKEN }, config.timeoutMs)
  const logs: string[] = []
  const app = createApp(config, { forwarder, log: (l) => logs.push(l), ...deps })
  const server: Server = createServer((req, res) => app(req, res))
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    logs,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
      await forwarder.close()
    },
  }
}

export interface RawResponse {
  status: number
  headers: IncomingHttpHeaders
  body: string
  json: () => { error?: { kind: string; message: string; field?: string; upstreamStatus?: number }; [k: string]: unknown }
}

/** A raw HTTP request, so tests control the exact path bytes and headers (fetch would normalise them). */
export function raw(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path, headers: { host: `127.0.0.1:${port}`, ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8')
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) })
        })
      },
    )
    req.on('error', reject)
    if (opts.body !== undefined) req.write(opts.body)
    req.end()
  })
}

export const form = (fields: Record<string, string> | Array<[string, string]>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
})

export interface SocketAnswer {
  /** 0 when the server closed the connection without a status line. */
  status: number
  head: string
  body: Buffer
  ms: number
  /** True when no complete answer arrived within the time limit (the socket was then destroyed). */
  timedOut: boolean
}

/**
 * Send exact bytes on a fresh connection and read until the server closes it (send
 * `Connection: close`). Nothing is normalised: the request line, headers and framing are
 * whatever the caller wrote. `halfCloseAfterMs` ends the client's side after that long, as a
 * client that gives up on a truncated body does (Node aborts a request whose client half-closes).
 */
export function sendRaw(port: number, bytes: Buffer | string, timeoutMs = 5_000, halfCloseAfterMs?: number): Promise<SocketAnswer> {
  return new Promise((resolve) => {
    const t0 = performance.now()
    const chunks: Buffer[] = []
    let timedOut = false
    let halfClose: NodeJS.Timeout | undefined
    const sock = connect(port, '127.0.0.1', () => {
      sock.write(bytes)
      if (halfCloseAfterMs !== undefined) halfClose = setTimeout(() => sock.end(), halfCloseAfterMs)
    })
    const timer = setTimeout(() => {
      timedOut = true
      sock.destroy()
    }, timeoutMs)
    sock.on('data', (c: Buffer) => chunks.push(c))
    sock.on('error', () => undefined)
    sock.on('close', () => {
      clearTimeout(timer)
      clearTimeout(halfClose)
      let all = Buffer.concat(chunks)
      // Interim 1xx answers (100 Continue) come before the real one; skip them.
      while (/^HTTP\/1\.[01] 1\d\d /.test(all.subarray(0, 16).toString('latin1')) && all.indexOf('\r\n\r\n') >= 0)
        all = all.subarray(all.indexOf('\r\n\r\n') + 4)
      const split = all.indexOf('\r\n\r\n')
      const head = split < 0 ? all.toString('latin1') : all.subarray(0, split).toString('latin1')
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(head)
      resolve({
        status: m ? Number(m[1]) : 0,
        head,
        body: split < 0 ? Buffer.alloc(0) : all.subarray(split + 4),
        ms: performance.now() - t0,
        timedOut,
      })
    })
  })
}

/** Open descriptors of this process (Linux), for leak checks. */
export function openFds(): number {
  return readdirSync('/proc/self/fd').length
}

export const SENTINEL_SYS_ID = 'fuzz-acct'
/** A credential no answer may ever contain; the simulator knows it as an extra account. */
export const SENTINEL_TOKEN = 'SENTINEL-fuzz-token-8d41c7e2'

/**
 * The whole server as it runs: the simulator on its own loopback port (control doors open, the
 * sentinel account planted), the proxy from server.ts's start() in front of it, serving a built
 * SPA from a temporary directory (a shell, a 600 KB script, a 4 MB binary asset).
 */
export async function simStack(env: Record<string, string> = {}, dialect: 'reference' | 'plain' = 'reference') {
  const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const { createSimulator } = await import('../simulator/simulator.ts')
  const { start } = await import('../server.ts')
  const sim = createSimulator({
    largeCount: 100,
    control: true,
    dialect,
    extraAccounts: [{ sysId: SENTINEL_SYS_ID, authToken: SENTINEL_TOKEN }],
  })
  const simServer = await sim.listen(0, '127.0.0.1')
  const dir = mkdtempSync(join(tmpdir(), 'sb-stack-'))
  mkdirSync(join(dir, 'assets'))
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>',
  )
  const js = Array.from({ length: 12_000 }, (_, i) => `export function f${i}(a, b) { return a * ${i} + b - ${i % 7}; }\n`).join('')
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), js)
  writeFileSync(join(dir, 'assets', 'big-abc123.bin'), Buffer.alloc(4 * 1024 * 1024, 7))
  const logs: string[] = []
  const config = parseConfig({
    API_BASE_URL: simServer.url,
    API_SYS_ID: SENTINEL_SYS_ID,
    API_AUTH_TOKEN: SENTINEL_TOKEN,
    API_TIMEOUT_MS: '2000',
    PORT: '0',
    ...env,
  })
  const running = await start(config, { staticDir: dir, log: (l) => logs.push(l), headersTimeoutMs: 2_000 })
  return {
    port: Number(new URL(running.url).port),
    url: running.url,
    sim,
    simUrl: simServer.url,
    running,
    dir,
    logs,
    close: async () => {
      await running.close()
      simServer.server.closeAllConnections()
      await new Promise<void>((ok) => simServer.server.close(() => ok()))
    },
  }
}

/**
 * Team access as the tests see it: everyone is the given principal (the local admin unless
 * said), and every action and read is pushed onto `entries` as [action, details], reads only
 * once "stored" (after a turn of the event loop, like a database write).
 */
export function recordingGate(
  entries: Array<[string, Record<string, unknown>]>,
  principal: Principal | null = { name: 'local', role: 'admin', via: 'local' },
): AccessGate {
  return {
    identify: async () => principal,
    routes: [],
    audit: async (_p, _a, action, details) => void entries.push([action, details]),
    recordRead: async (_p, _a, action, details) => {
      await new Promise((ok) => setImmediate(ok))
      entries.push([action, details])
    },
  }
}

/**
 * The real server (proxy/server.ts's start) composed from `env` as `npm start` composes it, with
 * its rooms (index, desk, access) handed back for tests that look into the database beside HTTP.
 */
export async function startWithRooms(env: Record<string, string>): Promise<{ running: Running; rooms: Rooms }> {
  const config = parseConfig(env)
  const roomsCfg = roomsConfigIssues(env, config)
  if (!roomsCfg.config) throw new Error(roomsCfg.issues.join('\n'))
  const cfg = roomsCfg.config
  let opened: Rooms | null = null
  const running = await start(config, {
    rooms: async (forwarder) => (opened = await openRooms(cfg, { forwarder, log: () => {} })),
  })
  if (!opened) throw new Error('the server started without opening its rooms')
  return { running, rooms: opened }
}

/** A server with its rooms on a simulator of its own (control doors open), its index on `engine`. */
export interface SimulatedStack {
  running: Running
  rooms: Rooms
  simUrl: string
  close: () => Promise<void>
}

/**
 * The demo account's simulator and a server in front of it, the index on a fresh PGlite directory
 * (copied from the migrated template, pglite-template.ts)
 * or a throwaway PostgreSQL cluster; nothing is synced until the test asks (SYNC_RATE 0).
 */
export async function startOnSimulator(engine: 'pglite' | 'postgres', prefix: string): Promise<SimulatedStack> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const cluster: Cluster | null = engine === 'postgres' ? await startCluster() : null
  if (!cluster) await freshPgliteDir(join(dir, 'data'))
  const { server: sim, url: simUrl } = await createSimulator({ control: true }).listen(0, '127.0.0.1')
  const { running, rooms } = await startWithRooms({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_REQUESTS: '0',
    ACCESS: 'local',
    API_BASE_URL: simUrl,
    API_SYS_ID: DEMO_CREDENTIALS.sysId,
    API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
    SYNC_RATE: '0',
    INDEX_AUTO_SYNC: 'off',
    ...(cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: join(dir, 'data') }),
  })
  return {
    running,
    rooms,
    simUrl,
    close: async () => {
      await running.close()
      sim.closeAllConnections()
      await new Promise<void>((ok) => sim.close(() => ok()))
      cluster?.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Counts the event loop's turns (one setImmediate after another) until stopped: a test of work
 * that must yield reads `turns()` after it, to see that the loop went round meanwhile.
 */
export function turnCounter(): { turns: () => number; stop: () => void } {
  let turns = 0
  let running = true
  const tick = () => {
    turns++
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  return { turns: () => turns, stop: () => void (running = false) }
}
