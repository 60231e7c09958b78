import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApp } from './app.ts'
import { parseConfig } from './config.ts'
import { createForwarder } from './forward.ts'

/** A recording stub upstream: every request it receives, and a programmable answer. */
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
export async function proxyFor(upstreamUrl: string, env: Record<string, string> = {}) {
  const config = parseConfig({ API_BASE_URL: upstreamUrl, API_SYS_ID: SYS_ID, API_AUTH_TOKEN: TOKEN, API_TIMEOUT_MS: '400', PORT: '0', ...env })
  const forwarder = createForwarder({ baseUrl: upstreamUrl, sysId: SYS_ID, authToken: TOKEN }, config.timeoutMs)
  const logs: string[] = []
  const app = createApp(config, { forwarder, log: (l) => logs.push(l) })
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
export function raw(port: number, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
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
