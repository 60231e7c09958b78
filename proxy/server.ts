import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createApp, type AppDeps } from './app.ts'
import { ConfigError, parseConfig, readDotEnv, type Config } from './config.ts'
import { ProxyError } from './errors.ts'
import type { RouteSpec } from './http-types.ts'
import { createForwarder, type Forwarder } from './forward.ts'
import { locator, mediaRoute } from './media/handler.ts'
import { createServedMedia } from './media/locate.ts'
import { DEMO_CREDENTIALS, LARGE_CREDENTIALS } from './simulator/dataset.ts'
import { createSimulator } from './simulator/simulator.ts'
import { openRooms, roomsConfigIssues, type Rooms } from './rooms.ts'
import { withControlSocket } from './access/control-socket.ts'

export interface Running {
  server: Server
  url: string
  upstreamLabel: string
  /** The forwarder the app uses, for the start-up check of the upstream. */
  forwarder: Forwarder
  /** The route table the server answers. */
  routes: readonly RouteSpec[]
  close: () => Promise<void>
}

export interface StartOptions {
  staticDir?: string
  log?: (line: string) => void
  headersTimeoutMs?: number
  connectionsPerAddress?: number
  /** More /api rooms (the index). */
  routes?: AppDeps['routes']
  /** Team access. */
  gate?: AppDeps['gate']
  /** Extra fields for GET /api/meta. */
  meta?: AppDeps['meta']
  /**
   * The rooms that need the upstream forwarder (the index syncs through it): built once the
   * forwarder exists, their routes, gate and meta join the app's, and they close with the server.
   */
  rooms?: (forwarder: Forwarder) => Promise<AppRooms>
  /**
   * Where the embedded simulator keeps its port between starts (DATA_DIR/simulator-port): the
   * media links it serves name its address, and the index stores them, so a new port at every
   * start broke every stored picture ("resolves to a loopback address").
   */
  simulatorPortFile?: string | null
  /** The clock the embedded simulator's history runs up to (resolveUpstream); none: its fixed end. */
  simulatorClock?: () => number
}

/** What the rooms behind the proxy add to the app (rooms.ts builds them; tests may pass their own). */
export type AppRooms = Pick<Rooms, 'routes' | 'gate' | 'meta' | 'close'> &
  Partial<Pick<Rooms, 'onHistoryServed' | 'storedMedia' | 'servedMedia'>>

/**
 * The one composition of the app: the upstream operations, the rooms' routes, team access and
 * the static files. `start()` (the server, the e2e stack, tests) and `npm run dev` (vite.config.ts)
 * both build their handler here, so each serves the same routes under the same checks.
 */
export function composeApp(
  config: Config,
  forwarder: Forwarder,
  upstreamBaseUrl: string,
  rooms: AppRooms | undefined,
  opts: Pick<StartOptions, 'staticDir' | 'log' | 'routes' | 'gate' | 'meta' | 'headersTimeoutMs' | 'connectionsPerAddress'> = {},
  simulator: SimulatorAccount | null = null,
) {
  const roomsMeta = rooms ? rooms.meta : opts.meta
  // The media of the history pages each sign-in was served: /api/media serves a message's media
  // only when the index or one of these pages holds it. In the database with the rooms (every
  // server shares it), in memory without them.
  const served = rooms?.servedMedia ?? createServedMedia()
  return createApp(config, {
    forwarder,
    staticDir: opts.staticDir,
    log: opts.log,
    headersTimeoutMs: opts.headersTimeoutMs,
    connectionsPerAddress: opts.connectionsPerAddress,
    routes: [
      ...(opts.routes ?? []),
      ...(rooms?.routes ?? []),
      // Message media through the server; it may reach the upstream's own host even on loopback.
      mediaRoute(config, upstreamBaseUrl, locator(served, rooms?.storedMedia ?? null)),
    ],
    gate: rooms?.gate ?? opts.gate,
    // The app labels demo data as such: nobody should mistake the simulator's account for theirs.
    meta: () => ({ ...roomsMeta?.(), upstream: simulator ? { kind: 'simulator', account: simulator } : { kind: 'configured' } }),
    onHistoryServed: rooms?.onHistoryServed,
    onHistoryPage: served.remember,
  })
}

/**
 * One cheap call upstream (allownednumbers) to say in the start-up banner whether the
 * messaging service answers, and if not, why, in the same words as the app's errors.
 */
export async function checkUpstream(forwarder: Forwarder): Promise<string> {
  const t0 = performance.now()
  try {
    const { body } = await forwarder.forward('allownednumbers', [])
    const data = (JSON.parse(body.toString('utf8')) as { data?: unknown }).data
    const count = Array.isArray(data) ? `, ${data.length} numbers` : ''
    return `answered (allownednumbers in ${Math.round(performance.now() - t0)} ms${count})`
  } catch (err) {
    if (err instanceof ProxyError) {
      const said = `${err.body.message}${err.body.cause ? ` Cause: ${err.body.cause}.` : ''}`
      return err.body.kind === 'unreachable' || err.body.kind === 'timeout'
        ? `did not answer: ${said}`
        : `answered, but not with data: ${said}`
    }
    return `could not be checked: ${err instanceof Error ? err.message : String(err)}`
  }
}

export type SimulatorAccount = Config['simulatorAccount']

export interface ResolvedUpstream {
  upstream: { baseUrl: string; sysId: string; authToken: string }
  label: string
  /** Which simulator account answers when no upstream is configured (the embedded simulator); null for a real one. */
  simulator: SimulatorAccount | null
  close: () => Promise<void>
}

/**
 * The configured upstream, or an embedded simulator on an ephemeral loopback port when none is set.
 * Given a clock (`npm start`, `npm run dev`), the simulator's history ends when this data directory first ran one (written beside the port,
 * `simulator-anchor`), and messages keep arriving from then on: a newcomer's demo runs up to
 * their present, and the index a restart finds still matches the history it had.
 */
export async function resolveUpstream(
  config: Config,
  portFile: string | null = null,
  now: (() => number) | null = null,
): Promise<ResolvedUpstream> {
  const { baseUrl, sysId, authToken } = config.upstream
  if (baseUrl !== null)
    return { upstream: { baseUrl, sysId, authToken }, label: new URL(baseUrl).host, simulator: null, close: async () => {} }
  // Without a clock (tests, benches) the history ends at the dataset's fixed END_MS, so their figures stay exact.
  // The scenario runs on the live clock only: without one nothing passes the history's end, and nothing breaks.
  const scenario = config.simulatorScenario !== null ? { scenario: { seed: config.simulatorScenario } } : {}
  const sim = createSimulator(now ? { clock: { endMs: simulatorAnchor(portFile, now()), now }, ...scenario } : {})
  const { server, url } = await listenSimulator(sim, portFile)
  const creds = config.simulatorAccount === 'large' ? LARGE_CREDENTIALS : DEMO_CREDENTIALS
  return {
    upstream: { baseUrl: url, sysId: creds.sysId, authToken: creds.authToken },
    label: `the embedded simulator (${config.simulatorAccount} account)`,
    simulator: config.simulatorAccount,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
    },
  }
}

/** When this data directory's simulator history ends: the first start's minute, remembered; now's when nothing can be kept. */
function simulatorAnchor(portFile: string | null, now: number): number {
  const minute = now - (now % 60_000)
  if (!portFile) return minute
  const file = join(resolve(portFile, '..'), 'simulator-anchor')
  try {
    const kept = Date.parse(readFileSync(file, 'utf8').trim())
    if (Number.isFinite(kept) && kept <= now) return kept
  } catch {
    /* first start */
  }
  try {
    mkdirSync(resolve(portFile, '..'), { recursive: true, mode: 0o700 })
    writeFileSync(file, `${new Date(minute).toISOString()}\n`, { mode: 0o600 })
  } catch {
    /* a read-only place: the next start anchors again */
  }
  return minute
}

/** The port the embedded simulator had last time (portFile), else any; the one it got is written back. */
async function listenSimulator(sim: ReturnType<typeof createSimulator>, portFile: string | null) {
  let wanted = 0
  try {
    const n = portFile ? Number(readFileSync(portFile, 'utf8').trim()) : 0
    if (Number.isInteger(n) && n >= 1024 && n <= 65535) wanted = n
  } catch {
    /* first start: any port */
  }
  const got = await sim.listen(wanted, '127.0.0.1').catch(() => sim.listen(0, '127.0.0.1'))
  if (portFile) {
    try {
      mkdirSync(resolve(portFile, '..'), { recursive: true, mode: 0o700 })
      writeFileSync(portFile, `${new URL(got.url).port}\n`, { mode: 0o600 })
    } catch {
      /* a read-only place: the next start picks a port again */
    }
  }
  return got
}

/** Resolve the upstream, then listen; the only place the proxy listens. */
export async function start(config: Config, opts: StartOptions = {}): Promise<Running> {
  const resolved = await resolveUpstream(config, opts.simulatorPortFile ?? null, opts.simulatorClock ?? null)
  const { upstream } = resolved
  const upstreamLabel = resolved.label
  const forwarder = createForwarder(upstream, config.timeoutMs)
  let rooms: Awaited<ReturnType<NonNullable<StartOptions['rooms']>>> | undefined
  try {
    rooms = await opts.rooms?.(forwarder)
  } catch (err) {
    await forwarder.close()
    await resolved.close()
    throw err
  }
  const app = composeApp(config, forwarder, upstream.baseUrl, rooms, opts, resolved.simulator)
  try {
    await app.fastify.listen({ port: config.port, host: config.host })
  } catch (err) {
    await app.fastify.close()
    await rooms?.close()
    await forwarder.close()
    await resolved.close()
    throw err
  }
  const server = app.fastify.server
  const addr = server.address() as AddressInfo
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address
  return {
    server,
    url: `http://${host}:${addr.port}`,
    upstreamLabel,
    forwarder,
    routes: app.routes,
    close: async () => {
      // Fastify stops accepting, answers what arrives meanwhile with 503 and closes every connection.
      await app.fastify.close()
      await rooms?.close()
      await forwarder.close()
      await resolved.close()
    },
  }
}

async function main() {
  // Every configuration problem at once (the server's, the index's, team access's), one line each.
  const env = { ...readDotEnv(resolve(process.cwd(), '.env')), ...process.env }
  let config: Config | null = null
  const problems: string[] = []
  try {
    config = parseConfig(env)
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    problems.push(...err.problems)
  }
  const roomsCfg = roomsConfigIssues(env, config)
  problems.push(...roomsCfg.issues)
  if (!config || !roomsCfg.config || problems.length) {
    for (const p of problems) console.error(p.startsWith('Refusing') ? p : `Configuration error: ${p}`)
    process.exit(2)
  }
  const cfg = config
  const rooms = roomsCfg.config
  const log = cfg.logRequests ? (line: string) => console.log(line) : undefined
  const running = await start(cfg, {
    staticDir: resolve(process.cwd(), 'dist'),
    log,
    simulatorPortFile: rooms.index.databaseUrl ? null : join(resolve(rooms.index.dataDir), 'simulator-port'),
    simulatorClock: Date.now,
    rooms: async (forwarder) =>
      withControlSocket(
        await openRooms(rooms, { forwarder, log: (line) => console.error(line) }),
        rooms.index.databaseUrl ? null : resolve(rooms.index.dataDir),
        (line) => console.error(line),
      ),
  }).catch((err: NodeJS.ErrnoException) => {
    console.error(
      err.code === 'EADDRINUSE' || err.code === 'EACCES'
        ? `Could not listen on ${cfg.host}:${cfg.port}: ${err.code}`
        : `Could not start: ${err.message}`,
    )
    process.exit(1)
  })
  const where = rooms.index.databaseUrl
    ? `PostgreSQL at ${new URL(rooms.index.databaseUrl).host}`
    : `PGlite in ${resolve(rooms.index.dataDir)} (owner-only)`
  console.log(`Message index: ${rooms.index.enabled ? 'on' : 'off (INDEX=off)'}; database: ${where}; access: ${rooms.access.mode}`)
  console.log(`Switchboard on ${running.url}  (upstream: ${running.upstreamLabel})`)
  console.log(`Upstream check: ${running.upstreamLabel} ${await checkUpstream(running.forwarder)}`)
  let closing = false
  const stop = () => {
    if (closing) return
    closing = true
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
    setTimeout(() => process.exit(0), 3000).unref()
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
