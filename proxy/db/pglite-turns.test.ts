import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDb, type OpenedDb } from './open.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'

/**
 * Answers from PGlite's worker that arrive together continue their callers one per turn of the
 * event loop (pglite-client.ts, createLanes' `later`), so the server reads its sockets between
 * two: 50 searchers' answers no longer hold /api/meta for tens of milliseconds.
 */

const root = mkdtempSync(join(tmpdir(), 'sb-turns-'))
let db: OpenedDb
beforeAll(async () => {
  await freshPgliteDir(join(root, 'data'))
  db = await openDb({ dataDir: join(root, 'data') })
}, 120_000)
afterAll(async () => {
  await db.close()
  rmSync(root, { recursive: true, force: true })
})

/** Holds this thread (a busy wait) so the worker's answers pile up on its port meanwhile. */
function hold(ms: number) {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // busy
  }
}

describe("PGlite's answers on the server's thread", () => {
  it('continue one per turn of the event loop, in the order they came, with other work let in between', async () => {
    await db.query('SELECT 1')
    const order: string[] = []
    let ioDone = () => {}
    const io = new Promise<void>((resolve) => (ioDone = resolve))
    const asks = Array.from({ length: 6 }, (_, i) =>
      db.query<{ n: number }>('SELECT $1::int AS n', [i]).then((r) => {
        order.push(`answer ${r.rows[0]!.n}`)
        // Something else the loop has to do, asked for when the first answer is read (a socket's read, say).
        if (i === 0)
          setImmediate(() => {
            order.push('other work')
            ioDone()
          })
      }),
    )
    // Every answer is on the port before this thread looks (PIPELINE sends up to 8 at once).
    hold(400)
    await Promise.all(asks)
    await io
    expect(order.filter((o) => o.startsWith('answer'))).toEqual([0, 1, 2, 3, 4, 5].map((n) => `answer ${n}`))
    // Read all at once, the other work would come after the sixth answer.
    expect(order.indexOf('other work')).toBeLessThan(order.indexOf('answer 5'))
    expect(order.indexOf('other work')).toBeGreaterThan(order.indexOf('answer 0'))
  })
})
