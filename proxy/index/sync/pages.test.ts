import { afterEach, describe, expect, it } from 'vitest'
import { textAt, type Parsed } from './page-protocol.ts'
import { pageWorker, type PageWorker } from './pages.ts'

/** The page worker on its own: a real worker thread, pages as the upstream's bytes. */

const record = (n: number) => ({
  system_id: String(1000 + n),
  // Identities in more than one script: they come back to this thread as UTF-8 bytes.
  message_id: n === 7 ? `m${n}-é→𝄞` : `m${n}`,
  phone: '+1 832 323 2323',
  GMTdate: `2033-01-0${1 + (n % 5)} 03:04:05`,
  direction: n % 2 ? 'inbound' : 'outbound',
  body: n % 3 ? 'Thanks!' : 'STOP',
  status: n % 4 ? 'delivered' : '500 failed',
})
/** A held page's record identities, each read back from the bytes the worker moved here. */
const idsOf = (p: Parsed) => (p.kind === 'page' ? Array.from(p.ids.ends, (_, i) => textAt(p.ids, i)) : null)

/** Positions start… of a history of `total` (position 1 newest, with system id 1000 + total). */
const page = (total: number, start: number, count: number) =>
  Buffer.from(
    JSON.stringify({
      success: '1',
      total_message_count: total,
      most_recent_msg_id: String(1000 + total),
      messages: Array.from({ length: count }, (_, i) => record(total - (start + i) + 1)),
    }),
  )
const of = { number: '18323232323', tid: 'T1', desk: true }

let pw: PageWorker | null = null
afterEach(async () => {
  await pw?.close()
  pw = null
})

describe('the page worker', () => {
  it('parses a page, keeps the records it is told to, and makes them a COPY payload with their roll-ups', async () => {
    pw = pageWorker()
    const a = await pw.parse('w1', 1, page(10, 1, 6))
    expect(a.parsed).toMatchObject({ kind: 'page', meta: { total: 10, newestId: '1010' }, newestIndex: 0 })
    expect(idsOf(a.parsed)).toEqual([10, 9, 8, 7, 6, 5].map((n) => `${1000 + n}|m${n}${n === 7 ? '-é→𝄞' : ''}`))
    const b = await pw.parse('w1', 6, page(10, 6, 5))
    pw.take('w1', a.id, [[0, 6]])
    pw.take('w1', b.id, [[1, 5]])
    const p = await pw.build('w1', of, 10)
    // Descending ordinals (as the key runs), each line up to its body id.
    const lines = Array.from(p.lineEnds, (end, i) => new TextDecoder().decode(p.lineBytes.subarray(i === 0 ? 0 : p.lineEnds[i - 1], end)))
    expect(lines.map((l) => Number(l.split(',')[2]))).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1])
    expect(p).toMatchObject({ count: 10, top: 10 })
    expect(new Set(p.bodies)).toEqual(new Set(['Thanks!', 'STOP']))
    expect(p.rollUp.bodies[1].reduce((x, y) => x + y, 0)).toBe(10)
    expect(p.desk).not.toBeNull()
  })

  it('sends back what is not a success object to be judged, and names a page it cannot place', async () => {
    pw = pageWorker()
    const judged = async (text: string) => {
      const { parsed } = await pw!.parse('w1', 1, Buffer.from(text))
      return parsed.kind === 'judge' ? { kind: parsed.kind, text: Buffer.from(parsed.bytes).toString('utf8') } : parsed
    }
    expect(await judged('{"success":"0","message":"no"}')).toEqual({ kind: 'judge', text: '{"success":"0","message":"no"}' })
    expect(await judged('<html>')).toEqual({ kind: 'judge', text: '<html>' })
    expect((await pw.parse('w1', 1, Buffer.from('{"success":"1"}'))).parsed).toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/total_message_count/),
    })
  })

  it('moves a page of its own to the thread instead of copying it, and a moved page to judge comes back whole', async () => {
    pw = pageWorker()
    const own = (b: Buffer) => {
      const out = Buffer.allocUnsafeSlow(b.length)
      b.copy(out)
      return out
    }
    const good = own(page(10, 1, 6))
    const a = await pw.parse('w1', 1, good, true)
    expect(a.parsed).toMatchObject({ kind: 'page', meta: { total: 10 } })
    // Moved, not copied: this thread's view of it is gone.
    expect(good.buffer.byteLength).toBe(0)
    const refusal = `{"success":"0","message":"${'busy '.repeat(20_000)}"}`
    const bad = own(Buffer.from(refusal))
    const b = await pw.parse('w1', 1, bad, true)
    expect(bad.buffer.byteLength).toBe(0)
    expect(b.parsed.kind === 'judge' && Buffer.from(b.parsed.bytes).toString('utf8')).toBe(refusal)
    // A view of a larger block (or of Node's pool) is copied, never moved: the rest of the block stays usable.
    const shared = Buffer.from(page(10, 1, 2))
    const c = await pw.parse('w1', 1, shared, true)
    expect(c.parsed).toMatchObject({ kind: 'page' })
    expect(shared.toString('utf8')).toBe(page(10, 1, 2).toString('utf8'))
  })

  it('refuses a batch that does not hold the rows the walk took, or took from a page it does not hold', async () => {
    pw = pageWorker()
    const a = await pw.parse('w1', 1, page(10, 1, 5))
    pw.take('w1', a.id, [[0, 5]])
    await expect(pw.build('w1', of, 6)).rejects.toThrow(/prepared 5 rows where 6 were taken/)
    pw.take('w1', 999, [[0, 5]])
    await expect(pw.build('w1', of, 5)).rejects.toThrow(/not held/)
  })

  it('stops its thread once the last walk has ended, and starts one again for the next', async () => {
    pw = pageWorker()
    await pw.parse('w1', 1, page(3, 1, 3))
    await pw.parse('w2', 1, page(3, 1, 3))
    pw.end('w1')
    await new Promise((r) => setTimeout(r, 2_500))
    expect(pw.alive()).toBe(true)
    pw.end('w2')
    // Stopped 2 s after (on a loaded machine, a little later).
    const deadline = Date.now() + 10_000
    while (pw.alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(pw.alive()).toBe(false)
    expect((await pw.parse('w3', 1, page(3, 1, 3))).parsed.kind).toBe('page')
    expect(pw.alive()).toBe(true)
  })
})
