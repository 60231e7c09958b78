import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ACCESS_LEVELS, allows, ROLES, type Role } from '../contract/roles.ts'
import { call, cookieFrom, HISTORY } from './testing/access-stack.ts'
import { addUser } from './access/users.ts'
import type { RouteSpec } from './http-types.ts'
import type { Rooms } from './rooms.ts'
import type { Running } from './server.ts'
import { heldAnswers } from './testing/answers.ts'
import { startWithRooms } from './testing/helpers.ts'
import { freshPgliteDir } from './testing/pglite-template.ts'
import { concrete, spellings } from './testing/spellings.ts'

/**
 * Generated from the route table the server really answers: every route × {signed out, and each
 * role of contract/roles.ts} × every spelling of its path that other software reads as the same path. A route gets
 * its declared answer under its exact path and nothing else under any other spelling; a read
 * route leaves an access-log entry naming the reader. A route added later is covered by
 * being in the table.
 */

const PASSWORD = 'Plinth-Harbour-Quietly-71'
const WHO: Array<{ label: string; role: Role | null }> = [
  { label: 'signed out', role: null },
  ...ROLES.map((role) => ({ label: role, role })),
]
/** A user of each role (ada the admin and vic the viewer, as the rest of the file knows them). */
const USER: Record<Role, string> = {
  ...(Object.fromEntries(ROLES.map((r) => [r, `${r}-user`])) as Record<Role, string>),
  admin: 'ada',
  viewer: 'vic',
}
/** The least role a route lets in: the one whose read the access log names. */
const leastAllowed = (r: RouteSpec): Role => ROLES.find((role) => allows(role, r.access))!

/** A valid body for each route that declares one and is not a read route, so only its query can be wrong. */
const BODY: Record<string, { query?: string; form?: string; json?: unknown }> = {
  'POST /api/allownednumbers': { form: '' },
  'POST /api/ownednumbers': { form: 'number_type=local' },
  'POST /api/auth/signin': { json: { name: 'ada', password: PASSWORD } },
  'POST /api/auth/users': { json: { name: 'newbie', role: 'viewer', password: 'Lantern-Orchard-Briskly-42' } },
  'POST /api/auth/users/:name': { json: { disabled: false } },
  'POST /api/index/sync': { json: { all: true } },
  'POST /api/index/forget': { json: { all: true } },
  'POST /api/index/export/cancel': { json: { job: 'tray-job-0001' } },
  'POST /api/watch/reveal': { json: { key: '0123456789abcdef' } },
  'POST /api/alerts/channels': { json: { kind: 'email', name: 'desk', target: 'desk@example.com' } },
  'POST /api/alerts/silences': { json: { rule: 'failure-spike', until: '2999-01-01T00:00:00Z' } },
  'POST /api/desk/handled': { json: { number: HISTORY.number, party: '14155550123' } },
  'POST /api/desk/handled/undo': { json: { number: HISTORY.number, party: '14155550123', handledAt: '2026-11-21T12:04:00Z' } },
  'POST /api/desk/settings': { json: { thresholdMinutes: 60 } },
  'POST /api/views': { json: { name: 'unread', query: 'q=refund' } },
  'POST /api/views/rename': { json: { id: '1', name: 'renamed' } },
  'POST /api/views/share': { json: { id: '1', shared: true } },
  'POST /api/views/delete': { json: { id: '1' } },
  'POST /api/views/open': { json: { id: '1' } },
}

/** A request each read route answers with data for, so its entry can be looked for. */
const SAMPLE: Record<string, { query?: string; form?: string; json?: unknown }> = {
  'POST /api/smshistory': { form: `number=${HISTORY.number}&tid=${HISTORY.tid}&history_start=1&history_end=5` },
  'POST /api/history/shown': { json: { number: HISTORY.number, tid: HISTORY.tid, start: 6, end: 10 } },
  'GET /api/index/search': { query: `numbers=${HISTORY.number}&limit=5` },
  'GET /api/index/thread': { query: `number=${HISTORY.number}&party=%PARTY%` },
  'GET /api/index/parties': { query: `number=${HISTORY.number}` },
  'GET /api/index/stats': { query: `number=${HISTORY.number}` },
  'GET /api/index/message': { query: `number=${HISTORY.number}&ordinal=1` },
  'GET /api/index/locate': { query: `number=${HISTORY.number}&date=2030-01-01` },
  'GET /api/index/export': { query: `numbers=${HISTORY.number}&direction=inbound` },
  'GET /api/desk/needs-reply': { query: 'thresholdMinutes=0' },
  'GET /api/desk/needs-reply/export': { query: 'thresholdMinutes=0' },
  'GET /api/desk/opt-outs': { query: `number=${HISTORY.number}` },
  'GET /api/desk/opt-outs/export': { query: `number=${HISTORY.number}` },
  'GET /api/desk/sent-after-opt-out': { query: `number=${HISTORY.number}` },
  'GET /api/desk/sent-after-opt-out/export': { query: `number=${HISTORY.number}` },
  'GET /api/desk/customer': { query: 'party=%PARTY%' },
  'GET /api/desk/quiet-hours': { query: `number=${HISTORY.number}` },
  'GET /api/desk/quiet-hours/export': { query: `number=${HISTORY.number}` },
  'GET /api/desk/segments': { query: `number=${HISTORY.number}` },
  'GET /api/media': { query: `number=${HISTORY.number}&ordinal=%MEDIA%` },
  'GET /api/views/counts': { query: 'tz=UTC' },
  'GET /api/watch/at-risk': { query: `number=${HISTORY.number}` },
  'GET /api/auth/access-log': { query: 'limit=5' },
  'GET /api/auth/access-log/export': { query: 'user=ada' },
}

/**
 * The routes whose answers no schema in contract/ describes, and why: a file or stream; or the
 * upstream's own answer passed through (read tolerantly, as the field notes say real answers vary).
 */
const UNDESCRIBED: Record<string, 'file or stream' | 'the upstream’s answer'> = {
  'POST /api/smshistory': 'the upstream’s answer',
  'POST /api/allownednumbers': 'the upstream’s answer',
  'POST /api/ownednumbers': 'the upstream’s answer',
  'GET /api/index/export': 'file or stream',
  'GET /api/desk/needs-reply/export': 'file or stream',
  'GET /api/desk/opt-outs/export': 'file or stream',
  'GET /api/desk/sent-after-opt-out/export': 'file or stream',
  'GET /api/desk/quiet-hours/export': 'file or stream',
  'GET /api/media': 'file or stream',
  'GET /api/auth/access-log/export': 'file or stream',
}

describe('the route table', () => {
  let dir: string
  let running: Running
  let rooms: Rooms
  const cookies: Partial<Record<Role, string>> = {}
  let party = ''
  let mediaOrdinal = 0

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-routes-'))
    await freshPgliteDir(join(dir, 'data'))
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_REQUESTS: '0',
      ACCESS: 'password',
      DATA_DIR: join(dir, 'data'),
      SYNC_RATE: '0',
      INDEX_AUTO_SYNC: 'off',
    }
    ;({ running, rooms } = await startWithRooms(env))
    const now = new Date()
    for (const role of ROLES) await addUser(rooms.db, { name: USER[role], role, password: PASSWORD }, { now })
    for (const role of ROLES) {
      const name = USER[role]
      const r = await call(port(), 'POST', '/api/auth/signin', { json: { name, password: PASSWORD } })
      expect(r.status).toBe(200)
      cookies[role] = cookieFrom(r)
    }
    // One number indexed, so read routes have customer data to show.
    await rooms.index.syncer!.request({ number: HISTORY.number, tid: HISTORY.tid })
    await rooms.index.syncer!.idle()
    const parties = await rooms.db.query<{ party: string }>(
      `SELECT party_digits AS party FROM index_messages WHERE number = $1 AND party_digits <> '' LIMIT 1`,
      [HISTORY.number],
    )
    party = parties.rows[0]!.party
    const media = await rooms.db.query<{ ordinal: number }>(
      `SELECT ordinal FROM index_messages WHERE number = $1 AND media_url LIKE 'http%' AND media_url NOT LIKE '%missing%' AND party_digits = $2 LIMIT 1`,
      [HISTORY.number, party],
    )
    mediaOrdinal = media.rows[0]!.ordinal
  }, 120_000)

  afterAll(async () => {
    await running?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const port = () => Number(new URL(running.url).port)
  const headersFor = (role: Role | null): Record<string, string> => (role ? { cookie: cookies[role]! } : {})
  const send = async (route: RouteSpec, path: string, role: Role | null, sample?: (typeof SAMPLE)[string]) => {
    // A page is reported shown only after this sign-in fetched it ahead: fetch it first.
    if (route.path === '/api/history/shown' && path === route.path && role)
      await call(port(), 'POST', '/api/smshistory', {
        headers: { ...headersFor(role), 'content-type': 'application/x-www-form-urlencoded', 'x-switchboard-prefetch': '1' },
        body: `number=${HISTORY.number}&tid=${HISTORY.tid}&history_start=6&history_end=10`,
      })
    const query = sample?.query?.replace('%PARTY%', party).replace('%MEDIA%', String(mediaOrdinal))
    return call(port(), route.method, query ? `${path}?${query}` : path, {
      headers: {
        ...headersFor(role),
        ...(sample?.form ? { 'content-type': 'application/x-www-form-urlencoded' } : ({} as Record<string, string>)),
      },
      ...(sample?.json !== undefined ? { json: sample.json } : sample?.form ? { body: sample.form } : {}),
    })
  }
  // Forgetting would empty the index the other rows read; it runs last, in its own test.
  const routes = () => running.routes.filter((r) => r.path !== '/api/index/forget' && r.path !== '/api/auth/signout')

  it("describes each answer in contract/ (its row's response), or says here why not", () => {
    const undescribed = running.routes.filter((r) => !r.response).map((r) => `${r.method} ${r.path}`)
    // A new route declares its answer's schema, or joins UNDESCRIBED with its reason.
    expect(undescribed.filter((k) => !(k in UNDESCRIBED))).toEqual([])
    // A route described since leaves the list.
    expect(Object.keys(UNDESCRIBED).filter((k) => !undescribed.includes(k))).toEqual([])
  })

  it('declares every route once, with an access level and a read flag', () => {
    const keys = running.routes.map((r) => `${r.method} ${r.path}`)
    expect(new Set(keys).size).toBe(keys.length)
    for (const r of running.routes) {
      expect(ACCESS_LEVELS).toContain(r.access)
      if (r.reads !== null) expect(SAMPLE[`${r.method} ${r.path}`], `a sample request for read route ${r.path}`).toBeDefined()
    }
  })

  it('answers each route as declared for the signed out and each role, a declared answer as its schema says', async () => {
    const answers = heldAnswers(() => running.routes)
    for (const route of routes())
      for (const who of WHO) {
        const r = await send(route, concrete(route.path), who.role, SAMPLE[`${route.method} ${route.path}`])
        const what = `${route.method} ${route.path} as ${who.label}: ${r.status} ${r.text.slice(0, 120)}`
        if (allows(who.role, route.access)) {
          // Reached its handler: not refused, and not the router's "no such path" (a missing user is the handler's 404).
          expect([401, 403, 405], what).not.toContain(r.status)
          expect(r.status === 404 && r.json().error?.field === 'path', what).toBe(false)
          if (route.reads) expect(r.status, what).toBe(200)
          // The answer the browser parses with the same schema (contract/) holds to it.
          answers.hold(route.method, concrete(route.path), r.status, () => r.json())
        } else expect(r.status, what).toBe(who.role ? 403 : 401)
      }
    // The reveal's sample names no endpoint (a 404 above): one that "Check now"'s listing stored, here.
    const listed = await call(port(), 'GET', '/api/watch/endpoints', { headers: headersFor('admin') })
    const key = (listed.json() as { endpoints: Array<{ key: string }> }).endpoints[0]?.key
    expect(key, 'an endpoint listed by the admin\'s "Check now" above').toBeDefined()
    const revealed = await call(port(), 'POST', '/api/watch/reveal', { headers: headersFor('admin'), json: { key } })
    expect(revealed.status, revealed.text).toBe(200)
    answers.hold('POST', '/api/watch/reveal', revealed.status, () => revealed.json())
    // Team access's changes, whose samples above name no real user or carry no body: made here,
    // each answer held to its schema.
    const asAdmin = async (method: string, path: string, json?: unknown) => {
      const r = await call(port(), method, path, { headers: headersFor('admin'), ...(json === undefined ? {} : { json }) })
      expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300)
      answers.hold(method, path, r.status, () => r.json())
    }
    await asAdmin('POST', '/api/auth/users', { name: 'answer-check', role: 'viewer', password: PASSWORD })
    await asAdmin('POST', '/api/auth/users/answer-check', { disabled: true })
    await asAdmin('DELETE', '/api/auth/users/answer-check')
    // The index's: the tray's progress of an export cancelled before it began, and a forget of a
    // number the index never held (the sample forgets everything, so the matrix leaves it out).
    await asAdmin('POST', '/api/index/export/cancel', { job: 'answer-job-0001' })
    await asAdmin('GET', '/api/index/export/progress?job=answer-job-0001')
    await asAdmin('POST', '/api/index/forget', { number: '15550000000' })
    await asAdmin('POST', '/api/index/sync', { number: HISTORY.number })
    // A session of its own to sign in and out with: the cookies above stay signed in for the tests after.
    const signedIn = await call(port(), 'POST', '/api/auth/signin', { json: { name: USER.viewer, password: PASSWORD } })
    expect(signedIn.status, signedIn.text).toBe(200)
    answers.hold('POST', '/api/auth/signin', signedIn.status, () => signedIn.json())
    const signedOut = await call(port(), 'POST', '/api/auth/signout', { headers: { cookie: cookieFrom(signedIn) } })
    expect(signedOut.status, signedOut.text).toBe(200)
    answers.hold('POST', '/api/auth/signout', signedOut.status, () => signedOut.json())
    // Every answer the watch, team access and the index declare was seen and checked (a row whose sample
    // never answers 2xx checks nothing). The alerts' rows, whose samples name no real rule or channel, are held by
    // proxy/alerts/routes.test.ts and witness-routes.test.ts.
    expect(answers.held.size).toBeGreaterThan(0)
    expect(answers.unheld('/api/watch')).toEqual([])
    expect(answers.unheld('/api/auth')).toEqual([])
    expect(answers.unheld('/api/index')).toEqual([])
  }, 120_000)

  it('refuses every other spelling of every path, for everyone', async () => {
    for (const route of running.routes)
      for (const path of spellings(route.path))
        for (const who of WHO) {
          const r = await send(route, path, who.role, SAMPLE[`${route.method} ${route.path}`])
          const what = `${route.method} ${path} as ${who.label}: ${r.status} ${r.text.slice(0, 120)}`
          // Signed out, a path the table does not hold is a 401 like every other /api path: a 404
          // there told someone not signed in which paths exist.
          // (/API/… is not an /api path: the app's files answer it, and have none by that name.)
          const outOfApi = who.role !== null || !path.startsWith('/api')
          expect(outOfApi ? [400, 404] : [400, 401], what).toContain(r.status)
          expect(r.json().error?.kind, what).toMatch(outOfApi ? /^(invalid_request|not_found)$/ : /^(invalid_request|unauthorized)$/)
        }
    for (const [method, path] of [
      ['GET', '/api/nonexistent'],
      ['GET', '/api/auth/users/ada'],
      ['PUT', '/api/meta'],
    ] as const) {
      const signedOut = await call(port(), method, path)
      expect(signedOut.status, `${method} ${path} signed out`).toBe(401)
      const viewer = await call(port(), method, path, { headers: { cookie: cookies.viewer! } })
      expect([404, 405], `${method} ${path} as a viewer`).toContain(viewer.status)
    }
    // The index still holds everything: no spelling of forget ran.
    const left = await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_messages')
    expect(left.rows[0]!.n).toBeGreaterThan(0)
  }, 180_000)

  it('leaves an access-log entry naming the reader for every read route', async () => {
    for (const route of running.routes.filter((r) => r.reads !== null)) {
      const role = leastAllowed(route)
      await rooms.access.flush()
      const before = await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM access_log WHERE action = $1', [route.reads])
      const r = await send(route, route.path, role, SAMPLE[`${route.method} ${route.path}`])
      expect(r.status, `${route.path}: ${r.text.slice(0, 200)}`).toBe(200)
      await rooms.access.flush()
      const after = await rooms.db.query<{ n: number; actor: string }>(
        'SELECT count(*)::int AS n, max(actor) AS actor FROM access_log WHERE action = $1 AND id > (SELECT coalesce(max(id), 0) FROM access_log) - 3',
        [route.reads],
      )
      expect(after.rows[0]!.n, `${route.path} recorded ${route.reads}`).toBeGreaterThan(0)
      expect(after.rows[0]!.actor).toBe(USER[role])
      const total = await rooms.db.query<{ n: number }>('SELECT count(*)::int AS n FROM access_log WHERE action = $1', [route.reads])
      expect(total.rows[0]!.n).toBeGreaterThan(before.rows[0]!.n)
    }
  }, 120_000)

  it("lets a viewer follow and cancel their own exports in the tray, and nobody else's; a cancel names what it would have read", async () => {
    const viewer = { cookie: cookies.viewer! }
    const admin = { cookie: cookies.admin! }
    const whole = await call(port(), 'GET', `/api/desk/opt-outs/export?number=${HISTORY.number}&job=viewer-job-0001`, { headers: viewer })
    expect(whole.status, whole.text).toBe(200)
    const mine = await call(port(), 'GET', '/api/index/export/progress?job=viewer-job-0001', { headers: viewer })
    expect(mine.status, mine.text).toBe(200)
    expect(mine.json()).toMatchObject({ state: 'done', action: 'opt-outs.export' })
    // Another person's id answers as an unknown one, admin or not.
    const theirs = await call(port(), 'GET', '/api/index/export/progress?job=viewer-job-0001', { headers: admin })
    expect(theirs.status).toBe(404)
    const cancelTheirs = await call(port(), 'POST', '/api/index/export/cancel', { headers: admin, json: { job: 'viewer-job-0001' } })
    expect(cancelTheirs.status).toBe(200) // remembered as the admin's own early cancel of that id, touching nothing of the viewer's
    expect((await call(port(), 'GET', '/api/index/export/progress?job=viewer-job-0001', { headers: viewer })).json()).toMatchObject({
      state: 'done',
    })

    // Cancelled before the download's request arrives: that request is refused, and the cancel is
    // logged then, under the report's own action and filters (the cancel alone knew neither).
    for (const [job, path, who] of [
      ['viewer-job-0002', `/api/desk/quiet-hours/export?number=${HISTORY.number}`, viewer],
      ['admin-job-0003', `/api/index/export?numbers=${HISTORY.number}&format=csv`, admin],
    ] as const) {
      const early = await call(port(), 'POST', '/api/index/export/cancel', { headers: who, json: { job } })
      expect(early.status, early.text).toBe(200)
      const refused = await call(port(), 'GET', `${path}&job=${job}`, { headers: who })
      expect(refused.status, refused.text).toBe(409)
    }
    await rooms.access.flush()
    const r = await rooms.db.query<{ action: string; actor: string; number: string | null; details: Record<string, unknown> }>(
      `SELECT action, actor, number, details FROM access_log WHERE action LIKE '%.cancel' ORDER BY id`,
    )
    expect(r.rows.map((e) => [e.action, e.actor, e.number, e.details.job, e.details.started])).toEqual([
      ['quiet-hours.export.cancel', 'vic', HISTORY.number, 'viewer-job-0002', false],
      ['history.export.cancel', 'ada', HISTORY.number, 'admin-job-0003', false],
    ])
  })

  it('logs a media view under the number and customer the index holds for the message; the page cannot name either', async () => {
    const viewer = { cookie: cookies.viewer! }
    const r = await call(port(), 'GET', `/api/media?number=${HISTORY.number}&ordinal=${mediaOrdinal}`, { headers: viewer })
    expect(r.status, r.text.slice(0, 200)).toBe(200)
    await rooms.access.flush()
    const e = await rooms.db.query<{ number: string | null; party: string | null }>(
      `SELECT number, party FROM access_log WHERE action = 'media.view' ORDER BY id DESC LIMIT 1`,
    )
    expect(e.rows[0]).toEqual({ number: HISTORY.number, party })
    for (const [q, field] of [
      [`&number=12`, 'number'],
      [`&party=15550001234`, 'party'],
    ] as const) {
      const bad = await call(port(), 'GET', `/api/media?number=${HISTORY.number}&ordinal=${mediaOrdinal}${q}`, { headers: viewer })
      expect(bad.status).toBe(400)
      expect(bad.json().error).toMatchObject({ field })
    }
  })

  it('logs a prefetched history page as a prefetch, and as a view once shown', async () => {
    const form = `number=${HISTORY.number}&tid=${HISTORY.tid}&history_start=11&history_end=15`
    const r = await call(port(), 'POST', '/api/smshistory', {
      headers: { cookie: cookies.viewer!, 'content-type': 'application/x-www-form-urlencoded', 'x-switchboard-prefetch': '1' },
      body: form,
    })
    expect(r.status).toBe(200)
    // The table as the access-log page reads it: the journal flushed first.
    const entries = async () => {
      await rooms.access.flush()
      return (
        await rooms.db.query<{ action: string }>(
          `SELECT action FROM access_log WHERE details->>'start' = '11' AND number = $1 ORDER BY id`,
          [HISTORY.number],
        )
      ).rows.map((e) => e.action)
    }
    expect(await entries()).toEqual(['history.prefetch'])
    const shown = await call(port(), 'POST', '/api/history/shown', {
      headers: { cookie: cookies.viewer! },
      json: { number: HISTORY.number, tid: HISTORY.tid, start: 11, end: 15 },
    })
    expect(shown.status).toBe(200)
    expect(await entries()).toEqual(['history.prefetch', 'history.view'])
    // Once only, and only a page this sign-in was served ahead: a second report, another
    // person's report of the page, or a page nobody fetched is refused and writes nothing.
    for (const [cookie, start, end] of [
      [cookies.viewer!, 11, 15],
      [cookies.admin!, 11, 15],
      [cookies.viewer!, 21, 25],
    ] as const) {
      const again = await call(port(), 'POST', '/api/history/shown', {
        headers: { cookie },
        json: { number: HISTORY.number, tid: HISTORY.tid, start, end },
      })
      expect(again.status, again.text).toBe(409)
    }
    expect(await entries()).toEqual(['history.prefetch', 'history.view'])
  })

  it("the desk's lists and every export name in the log the customers they showed, found by filtering the log by one", async () => {
    const viewer = headersFor('viewer')
    let checked = 0
    for (const [path, rowsOf] of [
      [`/api/desk/needs-reply?thresholdMinutes=0`, (b: Record<string, unknown>) => b.rows],
      [`/api/desk/opt-outs?number=${HISTORY.number}`, (b: Record<string, unknown>) => b.rows],
      [`/api/desk/sent-after-opt-out?number=${HISTORY.number}`, (b: Record<string, unknown>) => b.rows],
      [`/api/desk/quiet-hours?number=${HISTORY.number}`, (b: Record<string, unknown>) => b.rows],
    ] as const) {
      const r = await call(port(), 'GET', path, { headers: viewer })
      expect(r.status, path).toBe(200)
      const rows = (rowsOf(r.json()) ?? []) as Array<{ party: string }>
      await rooms.access.flush()
      const e = await rooms.db.query<{ details: { parties?: string[] } }>(`SELECT details FROM access_log ORDER BY id DESC LIMIT 1`)
      expect(new Set(e.rows[0]!.details.parties ?? []), path).toEqual(new Set(rows.map((x) => x.party)))
      if (rows.length) checked++
    }
    expect(checked).toBeGreaterThan(1)
    for (const path of [
      `/api/desk/needs-reply/export?thresholdMinutes=0`,
      `/api/desk/quiet-hours/export?number=${HISTORY.number}`,
      `/api/index/export?numbers=${HISTORY.number}&format=csv`,
    ]) {
      // The whole history's export is an agent's (and an admin's).
      const r = await call(port(), 'GET', path, { headers: path.startsWith('/api/index') ? headersFor('agent') : viewer })
      expect(r.status, path).toBe(200)
      await rooms.access.flush()
      const e = await rooms.db.query<{ action: string; details: { parties?: string[]; rows?: number } }>(
        `SELECT action, details FROM access_log WHERE action LIKE '%.done' ORDER BY id DESC LIMIT 1`,
      )
      const parties = e.rows[0]!.details.parties ?? []
      expect(parties.length, `${path}: ${JSON.stringify(e.rows[0])}`).toBeGreaterThan(0)
      const found = await call(port(), 'GET', `/api/auth/access-log?party=${parties[0]}&limit=100`, { headers: headersFor('admin') })
      const actions = (found.json() as { entries: Array<{ action: string }> }).entries.map((x) => x.action)
      expect(actions, path).toContain(e.rows[0]!.action)
    }
  })

  it('a history page names in the log every customer it showed, so filtering the log by one finds it', async () => {
    const r = await call(port(), 'POST', '/api/smshistory', {
      headers: { cookie: cookies.viewer!, 'content-type': 'application/x-www-form-urlencoded' },
      body: `number=${HISTORY.number}&tid=${HISTORY.tid}&history_start=31&history_end=60`,
    })
    expect(r.status).toBe(200)
    const shown = new Set(
      (JSON.parse(r.text) as { messages: Array<Record<string, unknown>> }).messages.map((m) =>
        String(m.phone ?? '')
          .replace(/\D/g, '')
          .slice(-10),
      ),
    )
    expect(shown.size).toBeGreaterThan(1)
    await rooms.access.flush()
    const e = await rooms.db.query<{ party: string | null; details: { parties?: string[] } }>(
      `SELECT party, details FROM access_log WHERE action = 'history.view' AND details->>'start' = '31' ORDER BY id DESC LIMIT 1`,
    )
    const logged = e.rows[0]!.details.parties ?? []
    expect(logged.length).toBe(shown.size)
    for (const one of logged) {
      expect(e.rows[0]!.party).toContain(one)
      const found = await call(port(), 'GET', `/api/auth/access-log?party=${one}&limit=50`, { headers: headersFor('admin') })
      const actions = (found.json() as { entries: Array<{ action: string; details: Record<string, unknown> }> }).entries
      expect(
        actions.some((a) => a.action === 'history.view' && a.details.start === 31),
        one,
      ).toBe(true)
    }
  })

  it("a read of one message, or of the message a date finds, names that message's customer in the log (it named none)", async () => {
    const row = await rooms.db.query<{ ordinal: number; party: string; date: Date }>(
      `SELECT ordinal, party_digits AS party, date FROM index_messages WHERE number = $1 AND party_digits <> '' ORDER BY ordinal DESC LIMIT 1`,
      [HISTORY.number],
    )
    const { ordinal, party: customer, date } = row.rows[0]!
    const read = await call(port(), 'GET', `/api/index/message?number=${HISTORY.number}&ordinal=${ordinal}`, {
      headers: { cookie: cookies.viewer! },
    })
    expect(read.status, read.text).toBe(200)
    const day = new Date(date).toISOString().slice(0, 10)
    const located = await call(port(), 'GET', `/api/index/locate?number=${HISTORY.number}&date=${day}`, {
      headers: { cookie: cookies.viewer! },
    })
    expect(located.status, located.text).toBe(200)
    await rooms.access.flush()
    const logged = await rooms.db.query<{ action: string; party: string | null }>(
      `SELECT DISTINCT ON (action) action, party FROM access_log WHERE action IN ('message.view', 'history.locate') ORDER BY action, id DESC`,
    )
    expect(logged.rows).toEqual([
      { action: 'history.locate', party: customer },
      { action: 'message.view', party: customer },
    ])
  })

  it('declares for every route its method, path, who may call it, what it reads and a schema of what it takes', () => {
    for (const r of running.routes) {
      const what = `${r.method} ${r.path}`
      expect(['GET', 'POST', 'DELETE'], what).toContain(r.method)
      expect(r.path, what).toMatch(/^\/api\//)
      expect(ACCESS_LEVELS, what).toContain(r.access)
      expect('reads' in r && (r.reads === null || typeof r.reads === 'string'), what).toBe(true)
      // Every row declares its query string: NO_QUERY/NO_PARAMS is the explicit "takes no parameters".
      expect(r.schema.querystring, what).toBeInstanceOf(z.ZodType)
      expect(r.schema.querystring.safeParse({ 'no-such-parameter': 'x' }).success, what).toBe(false)
      for (const part of [r.schema.body, r.schema.params]) if (part !== undefined) expect(part, what).toBeInstanceOf(z.ZodType)
    }
  })

  it('refuses an unknown and a repeated parameter on every route with the envelope naming the field', async () => {
    const role = (r: RouteSpec): Role | null => (r.access === 'public' ? null : 'admin')
    for (const route of running.routes) {
      const key = `${route.method} ${route.path}`
      // A request the route would otherwise take, so the parameter is the only thing wrong with it.
      const sample = BODY[key] ?? SAMPLE[key] ?? {}
      const unknown = await send(route, concrete(route.path), role(route), {
        ...sample,
        query: [sample.query, 'no-such-parameter=1'].filter(Boolean).join('&'),
      })
      const what = `${key}: ${unknown.status} ${unknown.text.slice(0, 200)}`
      expect(unknown.status, what).toBe(400)
      expect(unknown.json().error, what).toMatchObject({ kind: 'invalid_request', field: 'no-such-parameter' })
      expect(unknown.json().error?.message, what).toContain('no-such-parameter')
      // The request it takes behind a second `?` (`/path??number=…`): refused, not read as the request
      // itself while the log entry, made from the raw query string, named "?number" and no number.
      if (sample.query) {
        const lead = await send(route, concrete(route.path), role(route), { ...sample, query: `?${sample.query}` })
        const said = `${key} ??: ${lead.status} ${lead.text.slice(0, 200)}`
        expect(lead.status, said).toBe(400)
        expect(lead.json().error?.field, said).toMatch(/^\?/)
      }
      // A name the route takes, sent twice.
      const q = route.schema.querystring
      const shape = q instanceof z.ZodObject ? q.shape : q instanceof z.ZodPipe && q.in instanceof z.ZodObject ? q.in.shape : {}
      const name = Object.keys(shape)[0]
      if (!name) continue
      const twice = await send(route, concrete(route.path), role(route), { ...sample, query: `${name}=1&${name}=2` })
      expect(twice.status, `${key} ${name} twice`).toBe(400)
      expect(twice.json().error, `${key} ${name} twice`).toMatchObject({ field: name, message: `${name} was sent more than once.` })
    }
  }, 120_000)

  it('a search or listing by part of a number is logged under the customers it showed, found by their whole number', async () => {
    const fragment = party.slice(-7)
    const search = await call(port(), 'GET', `/api/index/search?party=${fragment}&limit=3`, { headers: headersFor('viewer') })
    expect(search.status, search.text).toBe(200)
    const shown = (search.json() as { rows: Array<{ phone: string }> }).rows
    expect(shown.length).toBeGreaterThan(0)
    const listed = await call(port(), 'GET', `/api/index/parties?number=${HISTORY.number}&party=${fragment}`, {
      headers: headersFor('viewer'),
    })
    expect(listed.status, listed.text).toBe(200)
    await rooms.access.flush()
    const log = await call(port(), 'GET', `/api/auth/access-log?party=${party}&user=vic&limit=50`, { headers: headersFor('admin') })
    const entries = (log.json() as { entries: Array<{ action: string; details: Record<string, unknown> }> }).entries
    const asked = (action: string) => entries.filter((e) => e.action === action && e.details.party === fragment)
    expect(asked('search.view'), JSON.stringify(entries.map((e) => e.action))).toHaveLength(1)
    expect(asked('parties.view'), JSON.stringify(entries.map((e) => e.action))).toHaveLength(1)
    expect(asked('search.view')[0]!.details.parties).toContain(party)
  })

  it("gives an agent the desk and whole exports, and keeps users, the access log and forgetting an admin's", async () => {
    const agent = headersFor('agent')
    const exported = await call(port(), 'GET', `/api/index/export?numbers=${HISTORY.number}&format=csv`, { headers: agent })
    expect(exported.status, exported.text.slice(0, 200)).toBe(200)
    for (const [method, path] of [
      ['POST', '/api/desk/handled'],
      ['POST', '/api/desk/handled/undo'],
    ] as const) {
      const r = await call(port(), method, path, { headers: agent, json: {} })
      expect([401, 403], `${path}: ${r.status} ${r.text.slice(0, 120)}`).not.toContain(r.status)
    }
    for (const [method, path] of [
      ['GET', '/api/auth/users'],
      ['POST', '/api/auth/users'],
      ['GET', '/api/auth/access-log'],
      ['GET', '/api/auth/access-log/export'],
      ['GET', '/api/auth/access-log/verify'],
      ['POST', '/api/index/forget'],
    ] as const) {
      const r = await call(port(), method, path, { headers: agent, json: method === 'POST' ? {} : undefined })
      expect(r.status, `${method} ${path}`).toBe(403)
    }
    // And a viewer still may not export a whole history.
    expect(
      (await call(port(), 'GET', `/api/index/export?numbers=${HISTORY.number}&format=csv`, { headers: headersFor('viewer') })).status,
    ).toBe(403)
  })

  it('lets only an admin forget, under the exact path only', async () => {
    const forget = running.routes.find((r) => r.path === '/api/index/forget')!
    for (const path of spellings(forget.path)) {
      const r = await call(port(), 'POST', path, { headers: { cookie: cookies.admin! }, json: { all: true } })
      expect([400, 404], path).toContain(r.status)
    }
    for (const role of ROLES.filter((x) => x !== 'admin'))
      expect((await call(port(), 'POST', forget.path, { headers: headersFor(role), json: { all: true } })).status, role).toBe(403)
    expect((await call(port(), 'POST', forget.path, { json: { all: true } })).status).toBe(401)
    const ok = await call(port(), 'POST', forget.path, { headers: { cookie: cookies.admin! }, json: { number: HISTORY.number } })
    expect(ok.status).toBe(200)
  })
})
