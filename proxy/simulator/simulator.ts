import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isOperation } from '../../contract/api.ts'
import { control } from './control.ts'
import type { Dialect } from './dialect.ts'
import { DEMO_CREDENTIALS, END_MS, LARGE_CREDENTIALS, SCALE_CREDENTIALS, makeAccount, makeScaleAccount, type Account } from './dataset.ts'
import { send } from './faults.ts'
import { MEDIA_FILES } from './media.ts'
import { operation, type SimState } from './operations.ts'
import { noQuirks } from './quirks.ts'
import { makeScenario } from './scenario.ts'

/**
 * The embedded upstream. It speaks the three operations as the interface document and the
 * field notes describe them, quirks included (operations.ts), checks the credentials it is
 * sent, and can be told to misbehave (faults.ts) through its control doors (control.ts), which
 * stay shut unless a test opens them.
 */

export type { Fault, FaultKind } from './faults.ts'
export type { RecordedRequest } from './operations.ts'

export interface SimulatorOptions {
  /** Size of the large account (10,000 by default). */
  largeCount?: number
  /** An account of several large histories under SCALE_CREDENTIALS (the scale bench); none by default. */
  scale?: { numbers: number; perNumber: number }
  /** More accounts with the demo dataset under other credentials (tests plant sentinel tokens this way). */
  extraAccounts?: Array<{ sysId: string; authToken: string }>
  /** Open the /__sim/* control doors (tests only). Off by default; SIMULATOR_CONTROL=1 opens them in main.ts. */
  control?: boolean
  /** How the upstream words and shapes its answers (dialect.ts): the reference by default. */
  dialect?: Dialect
  /**
   * Where the histories end: the dataset's fixed END_MS by default (tests and benches count on
   * it). With `now`, messages keep arriving after `endMs` at each number's own pace, so a server
   * left running (or started again days later) shows a history that runs up to its present.
   */
  clock?: { endMs: number; now?: () => number }
  /**
   * A demo that breaks on its own (scenario.ts): the seed picks which number's webhook breaks and
   * when in each six hours; the busiest number's sends fail for an hour. Off by default; it needs
   * `clock.now` (nothing changes before the history's end).
   */
  scenario?: { seed: number }
}

export interface Simulator {
  handle: (req: IncomingMessage, res: ServerResponse) => void
  listen: (port?: number, host?: string) => Promise<{ server: Server; url: string }>
  reset: () => void
  state: SimState
}

export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const accounts: Account[] = [
    makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60, options.clock?.endMs),
    makeAccount(LARGE_CREDENTIALS.sysId, LARGE_CREDENTIALS.authToken, options.largeCount ?? 10_000, options.clock?.endMs),
    ...(options.extraAccounts ?? []).map((a) => makeAccount(a.sysId, a.authToken, 60, options.clock?.endMs)),
    ...(options.scale
      ? [makeScaleAccount(SCALE_CREDENTIALS.sysId, SCALE_CREDENTIALS.authToken, options.scale.numbers, options.scale.perNumber)]
      : []),
  ]
  const state: SimState = {
    faults: [],
    added: new Map(),
    requests: [],
    calls: 0,
    quirks: noQuirks(),
    dialect: options.dialect ?? 'reference',
    now: options.clock?.now ?? null,
    scenario: options.scenario ? makeScenario(options.scenario.seed, accounts[0]!.numbers, options.clock?.endMs ?? END_MS) : null,
  }
  let mediaBase = 'http://127.0.0.1'

  const reset = () => {
    state.faults = []
    state.added.clear()
    state.requests = []
    state.calls = 0
    state.quirks = noQuirks()
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const run = async () => {
      if (path.startsWith('/__sim/')) {
        if (!options.control) {
          req.resume()
          return send(res, 404, '<html><body>Not found</body></html>', 'text/html')
        }
        return control(req, res, path, state, reset)
      }
      if (path.startsWith('/media/') && (req.method === 'GET' || req.method === 'HEAD')) {
        const file = Object.hasOwn(MEDIA_FILES, path.slice('/media/'.length)) ? MEDIA_FILES[path.slice('/media/'.length)] : undefined
        if (!file) return send(res, 404, 'not found', 'text/plain')
        res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length, 'cache-control': 'public, max-age=3600' })
        return res.end(req.method === 'HEAD' ? undefined : file.body)
      }
      const m = /^\/api\/([a-z]+)$/.exec(path)
      if (m?.[1] && isOperation(m[1])) {
        if (req.method !== 'POST') return send(res, 405, '{"success":"0","message":"POST only"}')
        return operation(req, res, m[1], accounts, state, mediaBase)
      }
      req.resume()
      return send(res, 404, '<html><body>Not found</body></html>', 'text/html')
    }
    run().catch(() => {
      if (!res.headersSent && !res.destroyed) send(res, 500, '{"error":"simulator failure"}')
      else res.destroy()
    })
  }

  const listen = (port = 0, host = '127.0.0.1') =>
    new Promise<{ server: Server; url: string }>((resolve, reject) => {
      const server = createServer({ keepAliveTimeout: 30_000 }, handle)
      server.once('error', reject)
      server.listen(port, host, () => {
        const addr = server.address() as AddressInfo
        const url = `http://${host}:${addr.port}`
        mediaBase = url
        resolve({ server, url })
      })
    })

  return { handle, listen, reset, state }
}
