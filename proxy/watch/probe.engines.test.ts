import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { listEndpoints } from './endpoints.ts'
import { keyOf } from './mask.ts'
import { allowedHostsTest, USER_AGENT, type CheckResult } from './probe.ts'
import { probeAll } from './probe-all.ts'
import { startTestEndpoints, type TestEndpoints } from '../testing/endpoints.ts'

/**
 * Endpoint checks against real loopback HTTP and HTTPS servers (certificates from the test's own
 * CA), stored on both engines: each outcome in words, the checks harmless, findings when an
 * endpoint fails, recovers or its certificate nears expiry, and the up/down history.
 */

const engines = useEngines()
let ep: TestEndpoints

beforeAll(async () => {
  ep = await startTestEndpoints()
}, 60_000)
afterAll(async () => {
  await ep?.close()
})

describe.each(ENGINES)('endpoint checks stored on %s', (engine) => {
  const PRIVATE_NAME = () => `http://localhost:${new URL(ep.urls.up).port}/hook`
  const opts = () => ({ concurrency: 4, timeoutMs: 1_500, allowed: allowedHostsTest(ep.allowed), ca: [ep.ca] })
  let results = new Map<string, CheckResult>()
  let findings: Awaited<ReturnType<typeof probeAll>>['findings'] = []
  let db: Awaited<ReturnType<typeof engines.open>>

  beforeAll(async () => {
    db = await engines.open(engine)
    ep.setStatus('error500', 500)
    ep.seen.length = 0
    const urls = [
      ...Object.values(ep.urls),
      'https://no-such-callback-host.invalid/hook',
      'https://10.0.0.5/dlr',
      PRIVATE_NAME(),
      'not a url',
    ]
    const round = await probeAll(db, { ...opts(), urls })
    results = new Map(round.results.map((r) => [r.url, r]))
    findings = round.findings
  }, 60_000)

  const of = (url: string) => {
    const r = results.get(url)
    if (!r) throw new Error(`no result for ${url}`)
    return r
  }

  it('says in words what each endpoint does', () => {
    expect(of(ep.urls.up)).toMatchObject({ outcome: 'up', status: 200 })
    expect(of(ep.urls.up).detail).toMatch(/^Up: answered 200 in \d+ ms\.$/)
    expect(of(ep.urls.headRefused)).toMatchObject({ outcome: 'up', status: 200 })
    expect(of(ep.urls.error500)).toMatchObject({ outcome: 'failing', failure: 'http', status: 500 })
    expect(of(ep.urls.redirect)).toMatchObject({ outcome: 'redirect', status: 301, location: 'https://moved.example/hooks' })
    expect(of(ep.urls.redirect).detail).toMatch(/Redirects elsewhere: answered 301 to https:\/\/moved\.example\/hooks/)
    expect(of(ep.urls.hang)).toMatchObject({ outcome: 'failing', failure: 'timeout' })
    expect(of(ep.urls.hang).detail).toMatch(/no answer within 1\.5 seconds/)
    expect(of(ep.urls.refused)).toMatchObject({ outcome: 'failing', failure: 'connection' })
    expect(of(ep.urls.refused).detail).toMatch(/connection refused/)
    expect(of(ep.urls.tlsGood)).toMatchObject({ outcome: 'up', status: 200 })
    expect(of(ep.urls.tlsGood).tls).toMatchObject({ error: null, protocol: expect.stringMatching(/^TLSv1\.[23]$/) })
    expect(of(ep.urls.tlsGood).tls!.days).toBeGreaterThan(250)
    expect(of(ep.urls.tlsSoon)).toMatchObject({ outcome: 'up' })
    expect(of(ep.urls.tlsSoon).tls!.days).toBeLessThanOrEqual(10)
    expect(of(ep.urls.tlsExpired)).toMatchObject({ outcome: 'failing', failure: 'tls' })
    expect(of(ep.urls.tlsExpired).detail).toMatch(/its TLS certificate expired on \d{4}-\d\d-\d\d/)
    expect(of(ep.urls.tlsWrongHost)).toMatchObject({ outcome: 'failing', failure: 'tls' })
    expect(of(ep.urls.tlsWrongHost).detail).toMatch(/its TLS certificate does not name 127\.0\.0\.1/)
    expect(of('https://no-such-callback-host.invalid/hook')).toMatchObject({ outcome: 'failing', failure: 'dns' })
    expect(of('https://no-such-callback-host.invalid/hook').detail).toMatch(/does not resolve: no such name/)
    expect(of('https://10.0.0.5/dlr')).toMatchObject({ outcome: 'private' })
    expect(of('https://10.0.0.5/dlr').detail).toMatch(/Not checked: 10\.0\.0\.5 is a private address .*WATCH_ALLOWED_HOSTS/)
    // localhost is loopback and not on the allow-list (only 127.0.0.1:port is): not contacted.
    expect(of(PRIVATE_NAME())).toMatchObject({ outcome: 'private' })
    expect(of('not a url')).toMatchObject({ outcome: 'invalid' })
  })

  it('checks harmlessly: HEAD (GET only after 405), no body, no cookies or credentials, a User-Agent naming Switchboard', () => {
    expect(ep.seen.length).toBeGreaterThan(0)
    for (const s of ep.seen) {
      expect(s.headers['user-agent']).toBe(USER_AGENT)
      expect(s.headers['user-agent']).toMatch(/Switchboard/)
      expect(s.headers.cookie).toBeUndefined()
      expect(s.headers.authorization).toBeUndefined()
      expect(s.bodyBytes).toBe(0)
    }
    expect(ep.seen.filter((s) => s.method === 'GET').map((s) => s.endpoint)).toEqual(['headRefused'])
    // The redirect was reported, not followed: nothing else was asked for.
    expect(ep.seen.filter((s) => s.endpoint === 'redirect')).toHaveLength(1)
    // The private name was never contacted: every request to "up" came from its own URL.
    expect(ep.seen.filter((s) => s.endpoint === 'up')).toHaveLength(1)
  })

  it('finds the endpoints that fail and the certificate that nears expiry', () => {
    const failing = findings.filter((f) => f.kind === 'endpoint.failing').map((f) => f.url)
    expect(failing.sort()).toEqual(
      [
        ep.urls.error500,
        ep.urls.redirect,
        ep.urls.hang,
        ep.urls.refused,
        ep.urls.tlsExpired,
        ep.urls.tlsWrongHost,
        'https://no-such-callback-host.invalid/hook',
      ].sort(),
    )
    const cert = findings.filter((f) => f.kind === 'cert.expiring')
    expect(cert.map((f) => f.url)).toEqual([ep.urls.tlsSoon])
    expect(cert[0]!.detail).toMatch(/within 14 days/)
  })

  it('keeps the up/down history per URL, and finds the recovery', async () => {
    await db.query(`INSERT INTO watch_state (number, tid, tids, type, webhook, dlr) VALUES ('15550009999', 'T', '{T}', 'local', $1, $2)`, [
      ep.urls.error500,
      ep.urls.up,
    ])
    ep.setStatus('error500', 200)
    const round = await probeAll(db, { ...opts(), urls: [ep.urls.error500] })
    expect(round.findings.map((f) => f.kind)).toEqual(['endpoint.recovered'])
    const [view] = await listEndpoints(db, { key: keyOf(ep.urls.error500), checks: 10 })
    expect(view!.url).toMatch(/\?token=•••$/)
    expect(view!.webhookOf).toEqual(['15550009999'])
    expect(view!.latest?.outcome).toBe('up')
    expect(view!.down).toHaveLength(1)
    expect(view!.down[0]!.end).not.toBeNull()
    expect(view!.checks!.map((c) => c.outcome)).toEqual(['up', 'failing'])
    await expect(db.query(`DELETE FROM watch_checks`)).rejects.toThrow(/append-only/)
  })
})
