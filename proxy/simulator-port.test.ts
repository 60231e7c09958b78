import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseConfig } from './config.ts'
import { resolveUpstream } from './server.ts'

/**
 * The embedded simulator's media links name its address, and the index stores them: a new port
 * at every start broke every stored picture after a restart ("resolves to a loopback address").
 */
describe('the embedded simulator’s port', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-simport-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('is the one it had last time in this data directory, else another, written back owner-only', async () => {
    const file = join(dir, 'data', 'simulator-port')
    const cfg = parseConfig({})
    const portOf = (u: { upstream: { baseUrl: string } }) => new URL(u.upstream.baseUrl).port
    const first = await resolveUpstream(cfg, file)
    const port = portOf(first)
    await first.close()
    expect(readFileSync(file, 'utf8').trim()).toBe(port)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const again = await resolveUpstream(cfg, file)
    expect(portOf(again)).toBe(port)
    // Taken (by the one still running): another port, and that one is remembered.
    const other = await resolveUpstream(cfg, file)
    expect(portOf(other)).not.toBe(port)
    expect(readFileSync(file, 'utf8').trim()).toBe(portOf(other))
    await again.close()
    await other.close()
  })
})
