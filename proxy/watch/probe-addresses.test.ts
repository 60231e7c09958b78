import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { checkUrl, type ProbeOptions } from './probe.ts'

/**
 * A name with several addresses is checked as a provider calls it: the next address when one
 * refuses the connection, not a failure at the first. Real sockets on loopback: a server on
 * 127.0.0.2 only, and 127.0.0.1 on the same port refusing; the name's two addresses come from the
 * check's own resolution seam (the `lookup` the watch passes through), not a mocked fetch.
 */

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
})

function listenOn(host: string, status = 204): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer((_req, res) => res.writeHead(status).end())
    servers.push(s)
    s.once('error', reject)
    s.listen(0, host, () => resolve((s.address() as AddressInfo).port))
  })
}

const opts = (addresses: string[]): ProbeOptions => ({
  timeoutMs: 3_000,
  allowed: () => true,
  lookup: async () => addresses.map((address) => ({ address, family: 4 })),
})

describe('a callback address whose name has several addresses', () => {
  it('is up when the first address refuses and the second answers', async () => {
    const port = await listenOn('127.0.0.2')
    const r = await checkUrl(`http://hooks.two.test:${port}/in`, opts(['127.0.0.1', '127.0.0.2']))
    expect(r.addresses).toEqual(['127.0.0.1', '127.0.0.2'])
    expect(r).toMatchObject({ outcome: 'up', status: 204, failure: null })
    expect(r.detail).toMatch(/^Up: answered 204 in \d+ ms\. 127\.0\.0\.1 refused the connection; 127\.0\.0\.2 answered\.$/)
  })

  it('is failing, naming every address tried, when none accepts', async () => {
    // A port that was free a moment ago: nothing listens on either address.
    const port = await listenOn('127.0.0.3')
    await new Promise((r) => servers.pop()!.close(r))
    const r = await checkUrl(`http://hooks.none.test:${port}/in`, opts(['127.0.0.1', '127.0.0.2']))
    expect(r).toMatchObject({ outcome: 'failing', failure: 'connection' })
    expect(r.detail).toBe(`Failing: could not connect to 127.0.0.1 or 127.0.0.2 port ${port} (connection refused).`)
  })
})
