import { afterAll, describe, expect, it } from 'vitest'
import { parseConfig } from './config.ts'
import { start, type Running } from './server.ts'

/**
 * A newcomer on `npm start` without an account sees the simulator's data; /api/meta says so, so
 * the app can label it (and says nothing of the kind when a real upstream is configured).
 */
describe('/api/meta names the upstream', () => {
  const running: Running[] = []
  afterAll(async () => {
    for (const r of running) await r.close()
  })
  const metaOf = async (env: Record<string, string>) => {
    const r = await start(parseConfig({ PORT: '0', HOST: '127.0.0.1', LOG_REQUESTS: '0', ...env }))
    running.push(r)
    return (await (await fetch(`${r.url}/api/meta`)).json()) as Record<string, unknown>
  }

  it('as the embedded simulator, with its account, when no upstream is configured', async () => {
    expect((await metaOf({})).upstream).toEqual({ kind: 'simulator', account: 'demo' })
    expect((await metaOf({ SIMULATOR_ACCOUNT: 'large' })).upstream).toEqual({ kind: 'simulator', account: 'large' })
  })

  it('as configured when API_BASE_URL names one', async () => {
    const meta = await metaOf({ API_BASE_URL: 'http://127.0.0.1:9', API_SYS_ID: 'x', API_AUTH_TOKEN: 'y' })
    expect(meta.upstream).toEqual({ kind: 'configured' })
  })
})
