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
    // Between a close and the next start another process's socket (a client connection's local
    // port, from the same ephemeral range) can hold the port for a moment: then another port is
    // right. Three tries: a server that never took its old port back fails all three.
    let port = ''
    let again: Awaited<ReturnType<typeof resolveUpstream>> | undefined
    for (let attempt = 0; attempt < 3; attempt++) {
      const first = await resolveUpstream(cfg, file)
      port = portOf(first)
      await first.close()
      expect(readFileSync(file, 'utf8').trim()).toBe(port)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      again = await resolveUpstream(cfg, file)
      if (portOf(again) === port) break
      await again.close()
      again = undefined
    }
    if (!again) throw new Error('the simulator did not take its remembered port back in three starts')
    expect(portOf(again)).toBe(port)
    // Taken (by the one still running): another port, and that one is remembered.
    const other = await resolveUpstream(cfg, file)
    expect(portOf(other)).not.toBe(port)
    expect(readFileSync(file, 'utf8').trim()).toBe(portOf(other))
    await again.close()
    await other.close()
  })

  it('ends its history at the first start of this data directory, and messages keep arriving after it', async () => {
    const file = join(dir, 'anchored', 'simulator-port')
    const cfg = parseConfig({})
    const first = Date.UTC(2027, 0, 5, 10, 15, 42)
    const newestOf = async (u: Awaited<ReturnType<typeof resolveUpstream>>) => {
      const { baseUrl, sysId, authToken } = u.upstream
      const form = new URLSearchParams({
        sys_id: sysId,
        auth_token: authToken,
        number: '18323232323',
        history_start: '1',
        history_end: '1',
      })
      const listing = (await (await fetch(`${baseUrl}/api/allownednumbers`, { method: 'POST', body: form })).json()) as {
        data: Array<{ number: string; tid: string }>
      }
      form.set('tid', listing.data.find((n) => n.number === '18323232323')!.tid)
      const h = (await (await fetch(`${baseUrl}/api/smshistory`, { method: 'POST', body: form })).json()) as {
        total_message_count: number
        most_recent_date: string
      }
      return [h.most_recent_date, h.total_message_count] as const
    }
    const a = await resolveUpstream(cfg, file, () => first)
    const [date, total] = await newestOf(a)
    await a.close()
    expect(date).toBe('2027-01-05 10:15:00')
    expect(readFileSync(join(dir, 'anchored', 'simulator-anchor'), 'utf8').trim()).toBe('2027-01-05T10:15:00.000Z')
    // Started again a day later (on another port: this test's fetch keeps the last one's connections): the
    // same history, and a day's messages (one every 23 min 17 s) after it.
    rmSync(file)
    const b = await resolveUpstream(cfg, file, () => first + 86_400_000)
    const [later, more] = await newestOf(b)
    await b.close()
    expect(more - total).toBe(Math.floor((86_400_000 + 42_000) / (23 * 60_000 + 17_000)))
    expect(Date.parse(`${later.replace(' ', 'T')}Z`)).toBeLessThanOrEqual(first + 86_400_000)
  })
})
