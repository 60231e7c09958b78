import { createServer as createHttp, type IncomingHttpHeaders, type Server } from 'node:http'
import { createServer as createHttps } from 'node:https'
import type { AddressInfo } from 'node:net'
import { makeTestCa } from './certs.ts'

/**
 * Callback endpoints on loopback for the watch's tests, each real: one up, one answering 500,
 * one redirecting, one refusing HEAD (405, then up to GET), one that never answers, and HTTPS
 * ones whose certificates the test's CA signed: valid, expiring in 10 days, expired, and one
 * naming another host. Every request's method, headers and body size are recorded.
 */

export interface SeenRequest {
  endpoint: string
  method: string
  headers: IncomingHttpHeaders
  bodyBytes: number
}

export interface TestEndpoints {
  ca: string
  urls: {
    up: string
    error500: string
    redirect: string
    headRefused: string
    hang: string
    tlsGood: string
    tlsSoon: string
    tlsExpired: string
    tlsWrongHost: string
    refused: string
  }
  /** `127.0.0.1:port` of every endpoint (WATCH_ALLOWED_HOSTS). */
  allowed: string[]
  seen: SeenRequest[]
  /** Make an endpoint answer with another status from now on. */
  setStatus: (endpoint: 'up' | 'error500', status: number) => void
  close: () => Promise<void>
}

export async function startTestEndpoints(): Promise<TestEndpoints> {
  const certs = makeTestCa()
  // Made first: a certificate of 0 days has expired by the time the checks run.
  const expired = certs.leaf('IP:127.0.0.1,DNS:localhost', 0)
  const good = certs.leaf('IP:127.0.0.1,DNS:localhost', 300)
  const soon = certs.leaf('IP:127.0.0.1,DNS:localhost', 10)
  const wrong = certs.leaf('DNS:other-host.example', 300)
  const seen: SeenRequest[] = []
  const status: Record<string, number> = { up: 200, error500: 500 }
  const servers: Server[] = []
  const handler = (endpoint: string) => (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    let bodyBytes = 0
    req.on('data', (c: Buffer) => (bodyBytes += c.length))
    req.on('end', () => {
      seen.push({ endpoint, method: req.method ?? '', headers: req.headers, bodyBytes })
      if (endpoint === 'hang') return
      if (endpoint === 'redirect') {
        res.writeHead(301, { location: 'https://moved.example/hooks' })
        return res.end()
      }
      if (endpoint === 'headRefused' && req.method === 'HEAD') {
        res.writeHead(405, { allow: 'GET, POST' })
        return res.end()
      }
      res.writeHead(status[endpoint] ?? 200, { 'content-type': 'text/plain' })
      res.end('hello callback')
    })
  }
  const listen = async (server: Server) => {
    servers.push(server)
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
    return (server.address() as AddressInfo).port
  }
  const http = async (name: string) => `http://127.0.0.1:${await listen(createHttp(handler(name)))}/hook?token=secret-${name}`
  const https = async (name: string, pair: { key: string; cert: string }) =>
    `https://127.0.0.1:${await listen(createHttps({ key: pair.key, cert: pair.cert }, handler(name)))}/hook`
  const closedPort = await listen(createHttp())
  await new Promise<void>((ok) => servers.pop()!.close(() => ok()))
  const urls = {
    up: await http('up'),
    error500: await http('error500'),
    redirect: await http('redirect'),
    headRefused: await http('headRefused'),
    hang: await http('hang'),
    tlsGood: await https('tlsGood', good),
    tlsSoon: await https('tlsSoon', soon),
    tlsExpired: await https('tlsExpired', expired),
    tlsWrongHost: await https('tlsWrongHost', wrong),
    refused: `http://127.0.0.1:${closedPort}/hook`,
  }
  return {
    ca: certs.ca,
    urls,
    allowed: Object.values(urls).map((u) => new URL(u).host),
    seen,
    setStatus: (endpoint, s) => void (status[endpoint] = s),
    close: async () => {
      for (const s of servers) s.closeAllConnections()
      await Promise.all(servers.map((s) => new Promise<void>((ok) => s.close(() => ok()))))
      certs.dispose()
    },
  }
}
