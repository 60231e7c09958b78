import { writeFileSync } from 'node:fs'
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttps } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { makeTestCa } from '../proxy/testing/certs.ts'

/**
 * The watch-alerts group's callback endpoints: `count` distinct URLs on loopback, the first half
 * over HTTP, the rest over HTTPS with a certificate for 127.0.0.1 from a CA of the bench's own
 * (the server trusts it through NODE_EXTRA_CA_CERTS, as the watch's tests do). Each answers a
 * check after a delay of its own (0 to 2 × `delayMs`, as endpoints across the internet do), the
 * last `hang` never answer (each costs the check its whole timeout), and any may be told to fail.
 */

export interface Endpoints {
  urls: string[]
  /** The HTTP and the HTTPS server's base URL (endpointUrl builds the list from them). */
  bases: [string, string]
  /** host:port of both servers, for WATCH_ALLOWED_HOSTS. */
  allowed: string[]
  /** The CA's certificate, written to a file for NODE_EXTRA_CA_CERTS. */
  caFile: string
  /** From now on the endpoint answers 500 (true) or as before (false). */
  fail: (k: number, failing: boolean) => void
  /** Requests answered or held so far. */
  seen: () => number
  close: () => Promise<void>
}

/** The k-th endpoint's URL: the same list in the driver and the server's process. */
export function endpointUrl(k: number, count: number, httpBase: string, httpsBase: string): string {
  return `${k < count / 2 ? httpBase : httpsBase}/callbacks/${k}/inbound`
}

export async function startEndpoints(opts: { count: number; delayMs: number; hang: number; dir: string }): Promise<Endpoints> {
  const certs = makeTestCa()
  const leaf = certs.leaf('IP:127.0.0.1,DNS:localhost', 300)
  const caFile = join(opts.dir, 'bench-ca.pem')
  writeFileSync(caFile, certs.ca)
  certs.dispose()
  const failing = new Set<number>()
  let seen = 0
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    seen++
    const k = Number(/^\/callbacks\/(\d+)\//.exec(req.url ?? '')?.[1] ?? -1)
    if (k < 0 || k >= opts.count) return void res.writeHead(404).end()
    if (k >= opts.count - opts.hang) return // held until the check gives up
    const status = failing.has(k) ? 500 : 200
    const answer = () => void res.writeHead(status, { 'content-type': 'text/plain' }).end('ok')
    const delay = opts.delayMs ? (k * 37) % (2 * opts.delayMs + 1) : 0
    if (delay) setTimeout(answer, delay)
    else answer()
  }
  const servers: Server[] = [createHttp(handler), createHttps({ key: leaf.key, cert: leaf.cert }, handler)]
  const ports: number[] = []
  for (const s of servers) {
    await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok))
    ports.push((s.address() as AddressInfo).port)
  }
  const [httpBase, httpsBase] = [`http://127.0.0.1:${ports[0]!}`, `https://127.0.0.1:${ports[1]!}`]
  return {
    urls: Array.from({ length: opts.count }, (_, k) => endpointUrl(k, opts.count, httpBase, httpsBase)),
    bases: [httpBase, httpsBase],
    allowed: ports.map((p) => `127.0.0.1:${p}`),
    caFile,
    fail: (k, on) => void (on ? failing.add(k) : failing.delete(k)),
    seen: () => seen,
    close: async () => {
      for (const s of servers) s.closeAllConnections()
      await Promise.all(servers.map((s) => new Promise<void>((ok) => s.close(() => ok()))))
    },
  }
}
