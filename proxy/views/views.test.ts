import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, type Cluster } from '../../scripts/pg-cluster.mjs'
import { run as usersCommand } from '../../scripts/users.mts'
import { withControlSocket } from '../access/control-socket.ts'
import { addUser } from '../access/users.ts'
import { heldAnswers } from '../testing/answers.ts'
import { call, cookieFrom, TEST_SCRYPT } from '../testing/access-stack.ts'
import { parseConfig } from '../config.ts'
import { openRooms, roomsConfigIssues, type Rooms } from '../rooms.ts'
import { composeApp, start, type Running } from '../server.ts'
import { DEMO_CREDENTIALS, END_MS, makeAccount, messageAt } from '../simulator/dataset.ts'
import { createSimulator } from '../simulator/simulator.ts'
import { viewsRoutes } from './routes.ts'
import { dataVersion, newMatches } from '../index/count-queries.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'

/**
 * Saved views over HTTP on the real server (team access, the index syncing from the simulator)
 * on both engines. The expected counts come from the simulator's own rules for the number's
 * messages (messageAt), not from the server's answers.
 */

const PASSWORD = 'Plinth-Harbour-Quietly-71'
const ACCOUNT = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60)
// 36 messages, the newest at END_MS: "last 7 days" on the clock below takes part of them.
const DOZENS = ACCOUNT.numbers[3]!
// The server's clock (relative ranges are resolved on it): 2026-11-26 18:00 UTC, so "last 7 days"
// (in UTC: from the 20th) takes only the last part of the number's history, which ends at noon on the 20th.
const NOW = END_MS + 6 * 86_400_000 + 6 * 3_600_000

/** Outbound messages of DOZENS with `added` appended, dated within [from, to). */
function outboundBetween(added: number, from: number, to: number, seqFrom = 1): number {
  const total = DOZENS.baseTotal + added
  let n = 0
  for (let seq = seqFrom; seq <= total; seq++) {
    const r = messageAt(DOZENS, seq, total, 'http://sim.invalid', added)
    const at = Date.parse(`${r.GMTdate.replace(' ', 'T')}Z`)
    if (r.direction === 'outbound' && at >= from && at < to) n++
  }
  return n
}

describe.each(['pglite', 'postgres'] as const)('saved views on %s', (engine) => {
  let dir: string
  let cluster: Cluster | null = null
  let running: Running
  let rooms: Rooms
  let sim: Server
  let simUrl: string
  const cookies: Record<string, string> = {}

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-views-'))
    if (engine === 'postgres') cluster = await startCluster()
    else await freshPgliteDir(join(dir, 'data'))
    const simulator = createSimulator({ control: true })
    const listening = await simulator.listen(0, '127.0.0.1')
    sim = listening.server
    simUrl = listening.url
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_REQUESTS: '0',
      ACCESS: 'password',
      API_BASE_URL: simUrl,
      API_SYS_ID: DEMO_CREDENTIALS.sysId,
      API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
      SYNC_RATE: '0',
      INDEX_AUTO_SYNC: 'off',
      ...(cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: join(dir, 'data') }),
    }
    const config = parseConfig(env)
    const cfg = roomsConfigIssues(env, config).config!
    running = await start(config, {
      rooms: async (forwarder) => {
        // On PGlite the command line reaches this server through its control socket, as beside `npm start`.
        rooms = await withControlSocket(
          await openRooms(cfg, { forwarder, log: () => {}, now: () => NOW }),
          cluster ? null : join(dir, 'data'),
          () => {},
        )
        return rooms
      },
    })
    for (const [name, role] of [
      ['vic', 'viewer'],
      ['wes', 'viewer'],
      ['ada', 'admin'],
    ] as const) {
      await addUser(rooms.db, { name, role, password: PASSWORD }, { now: new Date(NOW), scrypt: TEST_SCRYPT })
      const r = await call(port(), 'POST', '/api/auth/signin', { json: { name, password: PASSWORD } })
      expect(r.status).toBe(200)
      cookies[name] = cookieFrom(r)
    }
    await rooms.index.syncer!.request({ number: DOZENS.number, tid: DOZENS.tid })
    await rooms.index.syncer!.idle()
  }, 120_000)

  afterAll(async () => {
    await running?.close()
    sim?.closeAllConnections()
    await new Promise<void>((ok) => (sim ? sim.close(() => ok()) : ok()))
    cluster?.stop()
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  const port = () => Number(new URL(running.url).port)
  const cliEnv = () => (cluster ? { DATABASE_URL: cluster.url } : { DATA_DIR: join(dir, 'data'), DATABASE_URL: '' })
  // Every answer these tests get is held to the schema its row declares (contract/saved-views.ts).
  const answers = heldAnswers(() => running.routes)
  const as = async (who: string, method: string, path: string, json?: unknown) => {
    const r = await call(port(), method, path, { headers: { cookie: cookies[who]! }, ...(json === undefined ? {} : { json }) })
    answers.hold(method, path, r.status, () => r.json())
    return r
  }
  type View = { id: string; name: string; owner: string; mine: boolean; shared: boolean; newMatches: number | null; query: string }
  /** The views as the navigation shows them: the list, with the counts (a logged read) beside each. */
  const list = async (who: string, tz = 'UTC') => {
    const r = await as(who, 'GET', '/api/views')
    expect(r.status, r.text).toBe(200)
    const c = await as(who, 'GET', `/api/views/counts?tz=${encodeURIComponent(tz)}`)
    expect(c.status, c.text).toBe(200)
    const counts = new Map((c.json().counts as Array<{ id: string; newMatches: number | null }>).map((x) => [x.id, x.newMatches]))
    return (r.json().views as View[]).map((v) => ({ ...v, newMatches: counts.get(v.id) }))
  }
  // In the page's key order (the server keeps a query in that one spelling).
  const query = `dir=outbound&numbers=${DOZENS.number}&tz=utc`

  it('refuses a bad view with a message naming the field', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ query }, 'name', /name is required/],
      [{ name: '   ', query }, 'name', /must not be empty/],
      [{ name: 'x'.repeat(81), query }, 'name', /at most 80/],
      [{ name: 'a\nb', query }, 'name', /line breaks/],
      [{ name: 'abc\u202etxt.exe', query }, 'name', /text-direction/],
      [{ name: 'pay\u200broll', query }, 'name', /invisible/],
      [{ name: 'v', query: 'colour=red' }, 'query', /"colour" is not a search parameter/],
      [{ name: 'v', query: 'dir=sideways' }, 'query', /dir must be inbound or outbound/],
      [{ name: 'v', query: 'status=broken' }, 'query', /status must be/],
      [{ name: 'v', query: 'from=2026-02-31' }, 'query', /from must be a day/],
      [{ name: 'v', query: 'from=2026-11-20&to=2026-11-01' }, 'query', /to must not be before from/],
      [{ name: 'v', query: 'to=9999-12-31&tz=utc' }, 'query', /to must be a date from 1900-01-01 to 2999-12-31/],
      [{ name: 'v', query: 'q=a&q=b' }, 'query', /more than once/],
      [{ name: 'v', query: 'tz=mars' }, 'query', /tz must be local or utc/],
      [{ name: 'v', query: 42 }, 'query', /query string/],
      [{ name: 'v', query: 'from=2026-11-01', range: 'last-7-days' }, 'range', /replaces from and to/],
      [{ name: 'v', query, range: 'last-year' }, 'range', /range must be one of/],
      [{ name: 'v', query, shared: 'yes' }, 'shared', /shared must be true/],
      [{ name: 'v', query, owner: 'wes' }, 'owner', /not a field here/],
    ]
    for (const [body, field, message] of cases) {
      const r = await as('vic', 'POST', '/api/views', body)
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.json().error?.field, JSON.stringify(body)).toBe(field)
      expect(r.json().error?.message, JSON.stringify(body)).toMatch(message)
    }
    expect(await list('vic')).toEqual([])
    expect((await as('vic', 'GET', '/api/views/counts?tz=Mars%2FOlympus')).json().error?.field).toBe('tz')
    expect((await as('vic', 'GET', '/api/views?tz=UTC')).json().error?.field).toBe('tz')
  })

  it('a shared view an older server let through (a day past 2999) is not counted, and the others still are; the counts are logged with the numbers and customers they searched for the view’s owner, and by id and owner for a teammate', async () => {
    // Both as an older server stored them (this one refuses the second when it is saved).
    const insert = (name: string, q: string) =>
      rooms.db.query<{ id: string }>(
        `INSERT INTO saved_views (owner, name, shared, query, range) VALUES ('wes', $1, true, $2, NULL) RETURNING id::text AS id`,
        [name, q],
      )
    const good = (await insert('One customer', `party=4155550101&numbers=${DOZENS.number}&tz=utc`)).rows[0]!.id
    const broken = await insert('Far future', 'to=9999-12-31&tz=utc')
    try {
      for (const who of ['vic', 'ada', 'wes']) {
        const c = await as(who, 'GET', '/api/views/counts?tz=UTC')
        expect(c.status, c.text).toBe(200)
        const counts = new Map((c.json().counts as Array<{ id: string; newMatches: number | null }>).map((x) => [x.id, x.newMatches]))
        expect(counts.get(broken.rows[0]!.id)).toBeNull()
        expect(typeof counts.get(good)).toBe('number')
      }
      await rooms.access.flush()
      // The owner's counts name the numbers and customers the view searches...
      const byParty = (user: string) =>
        as('ada', 'GET', `/api/auth/access-log?action=views.counts&user=${user}&party=${encodeURIComponent('(415) 555-0101')}`)
      const logged = await byParty('wes')
      expect(logged.status, logged.text).toBe(200)
      const [entry] = logged.json().entries as Array<{ number: string; party: string }>
      expect(entry).toMatchObject({ number: DOZENS.number, party: '4155550101' })
      // ...a teammate's name the shared view and its owner, not the customer wes chose.
      expect((await byParty('vic')).json().entries).toEqual([])
      const vic = await as('ada', 'GET', '/api/auth/access-log?action=views.counts&user=vic')
      const shared = (vic.json().entries as Array<{ details: { shared?: Array<{ view: string; owner: string }> } }>).flatMap(
        (e) => e.details.shared ?? [],
      )
      expect(shared).toContainEqual({ view: good, owner: 'wes' })
    } finally {
      await rooms.db.query('DELETE FROM saved_views WHERE id = ANY($1::bigint[])', [[good, broken.rows[0]!.id]])
    }
  })

  it('saves, shares, counts new matches since each person last opened a view, renames and deletes', async () => {
    const made = await as('vic', 'POST', '/api/views', { name: 'Dozens outbound', shared: true, query, range: 'last-7-days' })
    expect(made.status, made.text).toBe(201)
    const id = (made.json().view as View).id
    expect(made.json().view).toMatchObject({ owner: 'vic', mine: true, shared: true, range: 'last-7-days', query })
    // One name per owner, compared case-insensitively.
    const again = await as('vic', 'POST', '/api/views', { name: 'dozens OUTBOUND', query: '' })
    expect([again.status, again.json().error?.field]).toEqual([409, 'name'])
    const priv = await as('vic', 'POST', '/api/views', { name: 'Mine only', query: '?q=refund&tz=utc', shared: false })
    expect(priv.status).toBe(201)
    const privId = (priv.json().view as View).id

    // Last 7 days on the server's clock, in UTC (the view's tz): 6 days back to the end of today.
    const from = Date.UTC(2026, 10, 20)
    const to = Date.UTC(2026, 10, 27)
    const inRange = outboundBetween(0, from, to)
    expect(inRange).toBeGreaterThan(0)
    expect(inRange).toBeLessThan(outboundBetween(0, 0, to))

    // The owner saw them when saving; the teammate has never opened it: every match is new to them.
    expect((await list('vic')).map((v) => [v.name, v.newMatches])).toEqual([
      ['Dozens outbound', 0],
      ['Mine only', 0],
    ])
    const wesViews = await list('wes')
    expect(wesViews.map((v) => [v.name, v.owner, v.mine, v.newMatches])).toEqual([['Dozens outbound', 'vic', false, inRange]])

    // New messages reach the index.
    const ADDED = 12
    const r = await fetch(`${simUrl}/__sim/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number: DOZENS.number, add: ADDED }),
    })
    expect(r.ok).toBe(true)
    await rooms.index.syncer!.request({ number: DOZENS.number, tid: DOZENS.tid })
    await rooms.index.syncer!.idle()
    const addedOutbound = outboundBetween(ADDED, from, to, DOZENS.baseTotal + 1)
    expect(addedOutbound).toBeGreaterThan(0)
    expect((await list('vic')).find((v) => v.id === id)?.newMatches).toBe(addedOutbound)
    expect((await list('wes'))[0]?.newMatches).toBe(outboundBetween(ADDED, from, to))

    // Opening marks it for that person only.
    const opened = await as('wes', 'POST', '/api/views/open', { id })
    expect(opened.status, opened.text).toBe(200)
    expect((await list('wes'))[0]?.newMatches).toBe(0)
    expect((await list('vic')).find((v) => v.id === id)?.newMatches).toBe(addedOutbound)
    expect((await as('vic', 'POST', '/api/views/open', { id })).status).toBe(200)
    expect((await list('vic')).find((v) => v.id === id)?.newMatches).toBe(0)

    // Only the owner changes a view; a private one is not there for anyone else.
    for (const [path, body] of [
      ['/api/views/rename', { id, name: 'Taken over' }],
      ['/api/views/delete', { id }],
    ] as const) {
      const refused = await as('wes', 'POST', path, body)
      expect([refused.status, refused.json().error?.field], path).toEqual([403, 'id'])
      expect(refused.json().error?.message).toContain('Only its owner, vic,')
    }
    for (const path of ['/api/views/open', '/api/views/rename', '/api/views/delete']) {
      const hidden = await as('wes', 'POST', path, path.endsWith('rename') ? { id: privId, name: 'x' } : { id: privId })
      expect([hidden.status, hidden.json().error?.field], path).toEqual([404, 'id'])
    }
    expect((await as('vic', 'POST', '/api/views/open', { id: 'abc' })).json().error?.field).toBe('id')
    const clash = await as('vic', 'POST', '/api/views/rename', { id, name: 'MINE ONLY' })
    expect([clash.status, clash.json().error?.field]).toEqual([409, 'name'])
    const renamed = await as('vic', 'POST', '/api/views/rename', { id, name: 'Outbound, this week' })
    expect(renamed.status, renamed.text).toBe(200)
    expect((await list('wes')).map((v) => v.name)).toEqual(['Outbound, this week'])
    expect((await as('vic', 'POST', '/api/views/delete', { id })).status).toBe(200)
    expect(await list('wes')).toEqual([])
    expect((await list('vic')).map((v) => v.name)).toEqual(['Mine only'])

    // Every count is a logged read naming the reader (the bare list is not); the changes are audited.
    await rooms.access.flush()
    const log = await rooms.db.query<{ actor: string; action: string }>(
      `SELECT actor, action FROM access_log WHERE action LIKE 'view%' ORDER BY id`,
    )
    const actions = log.rows.map((e) => `${e.actor} ${e.action}`)
    expect(actions).toContain('wes view.counts')
    expect(actions).toContain('vic view.counts')
    // A teammate's counts of vic's shared view name it by id and owner, never the numbers and
    // customers vic put in it: those are vic's, in vic's own entries.
    const wes = await rooms.db.query<{ number: string | null; details: { shared?: Array<{ owner: string }> } }>(
      `SELECT number, details FROM access_log WHERE action = 'view.counts' AND actor = 'wes' AND details ? 'shared'`,
    )
    expect(wes.rows.length).toBeGreaterThan(0)
    for (const e of wes.rows) {
      expect(e.number).toBeNull()
      expect(e.details.shared?.every((x) => x.owner === 'vic')).toBe(true)
    }
    expect(actions.some((a) => a.endsWith('views.list'))).toBe(false)
    expect(actions.filter((a) => / view\.(create|rename|delete)$/.test(a))).toEqual([
      'vic view.create',
      'vic view.create',
      'vic view.rename',
      'vic view.delete',
    ])
  }, 60_000)

  it('resolves a relative range in the browser’s zone when the query shows local time', async () => {
    const made = await as('vic', 'POST', '/api/views', {
      name: 'Week by zone',
      query: `numbers=${DOZENS.number}`,
      range: 'last-7-days',
      shared: true,
    })
    expect(made.status, made.text).toBe(201)
    const id = (made.json().view as View).id
    const all = (from: number) => {
      const total = DOZENS.baseTotal + 12
      let n = 0
      for (let seq = 1; seq <= total; seq++)
        if (Date.parse(`${messageAt(DOZENS, seq, total, 'http://sim.invalid', 12).GMTdate.replace(' ', 'T')}Z`) >= from) n++
      return n
    }
    const countIn = async (tz: string) => (await list('wes', tz)).find((v) => v.id === id)?.newMatches
    // At 18:00 UTC on the 26th: the 20th–26th in UTC; the 20th–26th in Los Angeles (UTC−8) start
    // at 08:00 UTC on the 20th; in Auckland (UTC+13) it is already the 27th, so the week starts on the 21st local, 11:00 UTC on the 20th.
    const counts = { UTC: all(Date.UTC(2026, 10, 20)), LA: all(Date.UTC(2026, 10, 20, 8)), AKL: all(Date.UTC(2026, 10, 20, 11)) }
    expect(new Set(Object.values(counts)).size).toBe(3)
    expect(await countIn('UTC')).toBe(counts.UTC)
    expect(await countIn('America/Los_Angeles')).toBe(counts.LA)
    expect(await countIn('Pacific/Auckland')).toBe(counts.AKL)
  })

  it('with ACCESS=local the owner is "local"', async () => {
    const app = composeApp(parseConfig({ PORT: '0', LOG_REQUESTS: '0' }), running.forwarder, simUrl, undefined, {
      routes: viewsRoutes(rooms.db, { search: { newMatches, dataVersion }, now: () => NOW }),
    })
    const server = createServer((req, res) => app(req, res))
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
    try {
      const p = (server.address() as AddressInfo).port
      const r = await call(p, 'POST', '/api/views', { json: { name: 'Local one', query: 'q=hello' } })
      expect(r.status, r.text).toBe(201)
      expect(r.json().view).toMatchObject({ owner: 'local', mine: true, shared: false })
      const listed = await call(p, 'GET', '/api/views')
      // Its own first; the views others share come after, not as its own.
      const views = listed.json().views as View[]
      expect(views.map((v) => v.name)).toEqual(['Local one', 'Week by zone'])
      expect(views.map((v) => v.mine)).toEqual([true, false])
    } finally {
      server.closeAllConnections()
      await new Promise<void>((ok) => server.close(() => ok()))
    }
  })
  it('lets the owner alone share a view or make it private, and logs each change', async () => {
    const made = await as('vic', 'POST', '/api/views', { name: 'Switching', query, shared: false })
    expect(made.status, made.text).toBe(201)
    const id = (made.json().view as View).id
    const seenBy = async (who: string) => (await list(who)).some((v) => v.id === id)
    expect(await seenBy('wes')).toBe(false)

    const shared = await as('vic', 'POST', '/api/views/share', { id, shared: true })
    expect(shared.status, shared.text).toBe(200)
    expect(shared.json().view).toMatchObject({ id, shared: true, mine: true })
    expect(await seenBy('wes')).toBe(true)
    // Someone else may neither unshare it nor share their way into a private one.
    const refused = await as('wes', 'POST', '/api/views/share', { id, shared: false })
    expect([refused.status, refused.json().error?.field]).toEqual([403, 'id'])
    expect(refused.json().error?.message).toContain('Only its owner, vic, may make private')
    for (const [body, field] of [
      [{ id }, 'shared'],
      [{ id, shared: 'no' }, 'shared'],
      [{ id: 'x', shared: true }, 'id'],
      [{ id, shared: true, owner: 'wes' }, 'owner'],
    ] as const) {
      const bad = await as('vic', 'POST', '/api/views/share', body)
      expect([bad.status, bad.json().error?.field], JSON.stringify(body)).toEqual([400, field])
    }

    const unshared = await as('vic', 'POST', '/api/views/share', { id, shared: false })
    expect(unshared.json().view).toMatchObject({ id, shared: false })
    expect(await seenBy('wes')).toBe(false)
    expect(await seenBy('vic')).toBe(true)
    const hidden = await as('wes', 'POST', '/api/views/share', { id, shared: true })
    expect([hidden.status, hidden.json().error?.field]).toEqual([404, 'id'])

    await rooms.access.flush()
    const log = await rooms.db.query<{ actor: string; details: { view: string; shared: boolean } }>(
      `SELECT actor, details FROM access_log WHERE action = 'view.share' ORDER BY id`,
    )
    expect(log.rows.map((r) => [r.actor, r.details.view, r.details.shared])).toEqual([
      ['vic', id, true],
      ['vic', id, false],
    ])
  })

  /** Each owner's views by sharing, from the table (what removal must take away). */
  const viewsOf = async (name: string) => {
    const r = await rooms.db.query<{ shared: boolean; n: number }>(
      'SELECT shared, count(*)::int AS n FROM saved_views WHERE owner = $1 GROUP BY shared',
      [name],
    )
    return { privateViews: r.rows.find((x) => !x.shared)?.n ?? 0, sharedViews: r.rows.find((x) => x.shared)?.n ?? 0 }
  }
  const opensBy = async (name: string) =>
    (await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM saved_view_opens WHERE user_name = $1', [name])).rows[0]!.n

  it('removes a user’s views, private and shared, over HTTP and from the command line', async () => {
    // Each has a private and a shared view, and has opened the other's shared one.
    for (const who of ['vic', 'wes']) {
      for (const shared of [false, true]) {
        const r = await as(who, 'POST', '/api/views', { name: `${who} ${shared ? 'team' : 'own'}`, query, shared })
        expect(r.status, r.text).toBe(201)
      }
    }
    for (const [who, other] of [
      ['vic', 'wes'],
      ['wes', 'vic'],
    ] as const) {
      const theirs = (await list(who)).find((v) => v.name === `${other} team`)!
      expect((await as(who, 'POST', '/api/views/open', { id: theirs.id })).status).toBe(200)
    }
    const vicHad = await viewsOf('vic')
    const wesHad = await viewsOf('wes')
    expect(vicHad.privateViews).toBeGreaterThan(0)
    expect(vicHad.sharedViews).toBeGreaterThan(0)
    expect(wesHad).toEqual({ privateViews: 1, sharedViews: 1 })
    expect(await opensBy('vic')).toBeGreaterThan(0)

    // Over HTTP, by an admin.
    const ada = await call(port(), 'POST', '/api/auth/signin', { json: { name: 'ada', password: PASSWORD } })
    const removed = await call(port(), 'DELETE', '/api/auth/users/vic', { headers: { cookie: cookieFrom(ada) } })
    expect(removed.status, removed.text).toBe(200)
    expect(removed.json()).toEqual({ removed: 'vic', ...vicHad })
    expect(await viewsOf('vic')).toEqual({ privateViews: 0, sharedViews: 0 })
    expect(await opensBy('vic')).toBe(0)
    expect((await list('wes')).map((v) => v.owner)).toEqual(['wes', 'wes'])

    // From the command line (on PGlite through the running server's socket, on PostgreSQL directly).
    const said: string[] = []
    await usersCommand(['remove', 'wes'], cliEnv(), (line) => said.push(line))
    expect(said).toEqual(['Removed wes and their 2 saved views (1 shared with the team).'])
    expect(await viewsOf('wes')).toEqual({ privateViews: 0, sharedViews: 0 })
    expect(await opensBy('wes')).toBe(0)
    const left = await rooms.db.query<{ owner: string }>('SELECT DISTINCT owner FROM saved_views ORDER BY owner')
    expect(left.rows.map((r) => r.owner)).toEqual(['local'])

    await rooms.access.flush()
    const log = await rooms.db.query<{ actor: string; details: Record<string, unknown> }>(
      `SELECT actor, details FROM access_log WHERE action = 'user.remove' ORDER BY id`,
    )
    expect(log.rows.map((r) => [r.actor.startsWith('cli:') ? 'cli' : r.actor, r.details])).toEqual([
      ['ada', { user: 'vic', ...vicHad }],
      ['cli', { user: 'wes', ...wesHad }],
    ])
  }, 120_000)

  it('answered every route as contract/saved-views.ts describes it', () => {
    expect(answers.unheld('/api/views')).toEqual([])
  })
})
