import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs'
import { partyKey } from '../../contract/desk/messages.ts'
import { call, cookieFrom, HISTORY } from '../testing/access-stack.ts'
import { addUser } from '../access/users.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'
import type { Rooms } from '../rooms.ts'
import type { Running } from '../server.ts'
import { DEMO_CREDENTIALS, makeAccount } from '../simulator/dataset.ts'
import { createSimulator } from '../simulator/simulator.ts'
import { startWithRooms } from '../testing/helpers.ts'
import type { RequestContext } from '../http-types.ts'
import { servedMediaIn } from './locate.ts'

/**
 * /api/media in the whole server, on both engines: the browser names a message and the server
 * finds its media in the index (number and ordinal) or in a history page this sign-in was
 * served (number and ids). What it does not know it refuses, and the access log names the
 * number and customer the server knows, whatever the page sends.
 */

const PASSWORD = 'Plinth-Harbour-Quietly-71'
/** A number of the demo account the test never indexes: its media is known only from pages served. */
const UNINDEXED = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).numbers.find(
  (n) => n.kind === 'normal' && n.number !== HISTORY.number && n.baseTotal >= 200 && n.deskCases === 0,
)!

interface PageMessage {
  system_id: string | number
  message_id: string
  phone: string
  mms_url: string
}

for (const engine of ['pglite', 'postgres'] as const)
  describe(`/api/media asks by message (${engine})`, () => {
    let dir: string
    let cluster: Cluster | null = null
    let running: Running
    let rooms: Rooms
    let sim: Awaited<ReturnType<ReturnType<typeof createSimulator>['listen']>>
    const cookie: Record<'ada' | 'vic', string> = { ada: '', vic: '' }
    const port = () => Number(new URL(running.url).port)
    const as = (who: 'ada' | 'vic') => ({ headers: { cookie: cookie[who] } })
    const views = async () => {
      await rooms.access.flush()
      return (
        await rooms.db.query<{ actor: string; number: string | null; party: string | null; details: Record<string, unknown> }>(
          `SELECT actor, number, party, details FROM access_log WHERE action = 'media.view' ORDER BY id`,
        )
      ).rows
    }
    const page = async (who: 'ada' | 'vic', start: number, end: number) => {
      const r = await call(port(), 'POST', '/api/smshistory', {
        headers: { cookie: cookie[who], 'content-type': 'application/x-www-form-urlencoded' },
        body: `number=${UNINDEXED.number}&tid=${UNINDEXED.tid}&history_start=${start}&history_end=${end}`,
      })
      expect(r.status, r.text.slice(0, 200)).toBe(200)
      // The simulator's missing.png is media its host does not have (a 404 of its own).
      return (r.json().messages as PageMessage[]).filter((m) => m.mms_url.startsWith('http') && !m.mms_url.includes('missing'))
    }
    const byIds = (m: PageMessage) => `/api/media?number=${UNINDEXED.number}&system=${m.system_id}&message=${m.message_id}`

    const env = () => ({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_REQUESTS: '0',
      ACCESS: 'password',
      API_BASE_URL: sim.url,
      API_SYS_ID: DEMO_CREDENTIALS.sysId,
      API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
      SYNC_RATE: '0',
      INDEX_AUTO_SYNC: 'off',
      ...(cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: join(dir, 'data') }),
    })

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sb-media-known-'))
      if (engine === 'postgres') cluster = await startCluster()
      else await freshPgliteDir(join(dir, 'data'))
      sim = await createSimulator().listen(0, '127.0.0.1')
      ;({ running, rooms } = await startWithRooms(env()))
      for (const [name, role] of [
        ['ada', 'admin'],
        ['vic', 'viewer'],
      ] as const) {
        await addUser(rooms.db, { name, role, password: PASSWORD }, { now: new Date() })
        const r = await call(port(), 'POST', '/api/auth/signin', { json: { name, password: PASSWORD } })
        expect(r.status).toBe(200)
        cookie[name] = cookieFrom(r)
      }
      await rooms.index.syncer!.request({ number: HISTORY.number, tid: HISTORY.tid })
      await rooms.index.syncer!.idle()
    }, 120_000)

    afterAll(async () => {
      await running?.close()
      sim?.server.closeAllConnections()
      await new Promise<void>((ok) => (sim ? sim.server.close(() => ok()) : ok()))
      cluster?.stop()
      rmSync(dir, { recursive: true, force: true })
    })

    it('serves an indexed message by number and ordinal, logged under the number and customer the index holds', async () => {
      const row = (
        await rooms.db.query<{ ordinal: number; party: string }>(
          `SELECT ordinal, party_digits AS party FROM index_messages
            WHERE number = $1 AND media_url LIKE 'http%' AND media_url NOT LIKE '%missing%' AND party_digits <> '' ORDER BY ordinal LIMIT 1`,
          [HISTORY.number],
        )
      ).rows[0]!
      const before = (await views()).length
      const r = await call(port(), 'GET', `/api/media?number=${HISTORY.number}&ordinal=${row.ordinal}`, as('vic'))
      expect(r.status, r.text.slice(0, 200)).toBe(200)
      expect(r.headers['content-type']).toMatch(/^(image|audio|video)\/|^application\/pdf$|^text\//)
      const logged = (await views()).slice(before)
      expect(logged.map((e) => [e.actor, e.number, e.party, e.details.ordinal])).toEqual([['vic', HISTORY.number, row.party, row.ordinal]])
    })

    it('refuses what the index does not hold, and a page can no longer name the address, number or customer logged', async () => {
      const text = (
        await rooms.db.query<{ ordinal: number }>(
          `SELECT ordinal FROM index_messages WHERE number = $1 AND (media_url IS NULL OR media_url = '') ORDER BY ordinal LIMIT 1`,
          [HISTORY.number],
        )
      ).rows[0]!
      const media = (
        await rooms.db.query<{ ordinal: number; url: string }>(
          `SELECT ordinal, media_url AS url FROM index_messages WHERE number = $1 AND media_url LIKE 'http%' ORDER BY ordinal LIMIT 1`,
          [HISTORY.number],
        )
      ).rows[0]!
      const before = (await views()).length
      const refusals: Array<[string, number, string]> = [
        // A text message holds no media; another number (the finding's 19999999999) holds no such message.
        [`?number=${HISTORY.number}&ordinal=${text.ordinal}`, 404, 'ordinal'],
        [`?number=19999999999&ordinal=${media.ordinal}`, 404, 'ordinal'],
        [`?number=${HISTORY.number}&ordinal=999999`, 404, 'ordinal'],
        // The media's own address, any public URL, or the customer to log: not the page's to say.
        [`?url=${encodeURIComponent(media.url)}&number=${HISTORY.number}`, 400, 'url'],
        [`?url=${encodeURIComponent('https://example.com/a.png')}`, 400, 'url'],
        [`?number=${HISTORY.number}&ordinal=${media.ordinal}&party=15550001234`, 400, 'party'],
      ]
      for (const [query, status, field] of refusals) {
        const r = await call(port(), 'GET', `/api/media${query}`, as('vic'))
        expect(r.status, query).toBe(status)
        expect(r.json().error?.field, query).toBe(field)
      }
      expect((await views()).length).toBe(before)
    })

    it("serves a message of a number not yet indexed only to the sign-in that was served its page, under that page's number and customer", async () => {
      const served = await page('vic', 1, 30)
      const m = served[0]!
      expect(m, 'the first 30 messages hold media').toBeDefined()
      const before = (await views()).length
      const r = await call(port(), 'GET', byIds(m), as('vic'))
      expect(r.status, r.text.slice(0, 200)).toBe(200)
      // Another sign-in was not served that page; and a page nobody was served is unknown.
      const other = await call(port(), 'GET', byIds(m), as('ada'))
      expect(other.status).toBe(404)
      expect(other.json().error).toMatchObject({ kind: 'not_found', field: 'message' })
      const later = (await page('ada', 31, 90))[0]!
      expect((await call(port(), 'GET', byIds(later), as('vic'))).status).toBe(404)
      const adaOwn = await call(port(), 'GET', byIds(later), as('ada'))
      expect(adaOwn.status, adaOwn.text + byIds(later)).toBe(200)
      // The ids under another number are another message.
      const moved = await call(port(), 'GET', byIds(m).replace(UNINDEXED.number, '19999999999'), as('vic'))
      expect(moved.status).toBe(404)
      const logged = (await views()).slice(before)
      expect(logged.map((e) => [e.actor, e.number, e.party])).toEqual([
        ['vic', UNINDEXED.number, partyKey(m.phone)],
        ['ada', UNINDEXED.number, partyKey(later.phone)],
      ])
      expect(logged[0]!.details).toMatchObject({ systemId: String(m.system_id), messageId: m.message_id })
    })

    if (engine === 'postgres')
      it("serves a page's media from another server behind the same database, to the same sign-in only", async () => {
        const second = await startWithRooms(env())
        try {
          const other = Number(new URL(second.running.url).port)
          const m = (await page('vic', 91, 150))[0]!
          const r = await call(other, 'GET', byIds(m), as('vic'))
          expect(r.status, r.text.slice(0, 200)).toBe(200)
          expect((await call(other, 'GET', byIds(m), as('ada'))).status).toBe(404)
        } finally {
          await second.running.close()
        }
      })

    it("a forget of the number takes the served pages' media with it", async () => {
      const m = (await page('vic', 151, 210))[0]!
      expect((await call(port(), 'GET', byIds(m), as('vic'))).status).toBe(200)
      const held = async () =>
        (await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM media_served WHERE number = $1', [UNINDEXED.number])).rows[0]!
          .n
      // PostgreSQL keeps the ledger in the database (servers share it); PGlite's one server in memory.
      if (engine === 'postgres') expect(await held()).toBeGreaterThan(0)
      const f = await call(port(), 'POST', '/api/index/forget', { headers: as('ada').headers, json: { number: UNINDEXED.number } })
      expect(f.status, f.text).toBe(200)
      expect(await held()).toBe(0)
      const after = await call(port(), 'GET', byIds(m), as('vic'))
      expect(after.status).toBe(404)
      expect(after.json().error).toMatchObject({ kind: 'not_found', field: 'message' })
    })

    it('keeps the served media bounded in the database: by age, and by count with the oldest going first', async () => {
      let t = 1_000_000
      const ledger = servedMediaIn(rooms.db, { maxRows: 3, maxAgeMs: 60_000, pruneEveryMs: 0, now: () => t })
      const ctx = { principal: { name: 'bounds', role: 'viewer', via: 'password', sessionId: 's1' } } as unknown as RequestContext
      const rec = (i: number) => ({
        systemId: `b${i}`,
        messageId: `m${i}`,
        partyDigits: '14155550123',
        mediaUrl: `https://media.example/${i}.png`,
      })
      const ref = (i: number) => ({ number: '15550009999', system: `b${i}`, message: `m${i}` })
      const held = async () =>
        (await rooms.db.query<{ s: string }>(`SELECT system_id AS s FROM media_served WHERE sign_in LIKE '%bounds%' ORDER BY s`)).rows.map(
          (r) => r.s,
        )
      for (const i of [1, 2, 3, 4]) {
        await ledger.remember(ctx, '15550009999', [rec(i), rec(i)])
        t += 1_000
      }
      expect(await held()).toEqual(['b2', 'b3', 'b4'])
      expect(await ledger.find(ctx, ref(4))).toEqual([{ url: 'https://media.example/4.png', number: '15550009999', party: '14155550123' }])
      expect(await ledger.find({ principal: { ...ctx.principal!, sessionId: 's2' } } as RequestContext, ref(4))).toEqual([])
      t += 57_500
      // b2 was served 60.5 s ago: past its age it is not answered, and the next page's prune deletes it.
      expect(await ledger.find(ctx, ref(2))).toEqual([])
      expect(await ledger.find(ctx, ref(4))).toHaveLength(1)
      await ledger.remember(ctx, '15550009999', [])
      expect(await held()).toEqual(['b3', 'b4'])
    })
  })
