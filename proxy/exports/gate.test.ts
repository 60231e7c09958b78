import { EventEmitter } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import type { Db } from '../db/types.ts'
import { createExportGate, ExportRefused, type ExportGate } from './gate.ts'
import { createExportTracker } from './progress.ts'
import { streamExport } from '../index/export.ts'
import { parseFilters } from '../kernel/params.ts'

/** The refusal `enter` throws, or null when it let the export in (running or waiting). */
function refusalOf(gate: ExportGate, who: string): ExportRefused | null {
  try {
    gate.enter(who)
    return null
  } catch (err) {
    if (err instanceof ExportRefused) return err
    throw err
  }
}

/** Whether a promise has settled by now (after the microtasks queued so far). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false
  void p.then(() => {
    done = true
  })
  await Promise.resolve()
  await Promise.resolve()
  return done
}

describe('the export gate', () => {
  it('lets exports wait in line, first come first, each knowing its place and when it should start', async () => {
    let now = 0
    const gate = createExportGate({ perUser: 1, total: 1, queue: 5 }, () => now)
    const ana = gate.enter('ana')
    expect(ana.place()).toBeNull()
    expect(await settled(ana.turn)).toBe(true)
    const bo = gate.enter('bo')
    const cy = gate.enter('cy')
    expect([gate.running(), gate.waiting()]).toEqual([1, 2])
    // Before ana's export has a pace, no time is claimed.
    expect(bo.place()).toEqual({ position: 1, startsInS: null })
    expect(cy.place()).toEqual({ position: 2, startsInS: null })
    // Half of ana's rows in 20 s: 20 s left. bo then starts and is expected to take as long as
    // ana does (40 s), so cy starts 40 s after bo.
    now = 20_000
    ana.progress(500, 1000)
    expect(bo.place()).toEqual({ position: 1, startsInS: 20 })
    expect(cy.place()).toEqual({ position: 2, startsInS: 60 })
    // The estimate follows the pace: faster now, three quarters in 24 s.
    now = 24_000
    ana.progress(750, 1000)
    expect(bo.place()).toEqual({ position: 1, startsInS: 8 })
    expect(cy.place()).toEqual({ position: 2, startsInS: 40 })

    ana.leave()
    expect(await settled(bo.turn)).toBe(true)
    expect(await settled(cy.turn)).toBe(false)
    expect(bo.place()).toBeNull()
    expect(cy.place()).toEqual({ position: 1, startsInS: null })
    bo.leave()
    expect(await settled(cy.turn)).toBe(true)
    expect([gate.running(), gate.waiting()]).toEqual([1, 0])
    // Leaving twice frees one slot, not two.
    bo.leave()
    cy.leave()
    cy.leave()
    expect([gate.running(), gate.waiting()]).toEqual([0, 0])
  })

  it("makes a person's second export wait for their first, without holding back others behind it", async () => {
    let now = 0
    const gate = createExportGate({ perUser: 1, total: 2, queue: 5 }, () => now)
    const ana1 = gate.enter('ana')
    const ana2 = gate.enter('ana')
    expect(ana2.place()).toEqual({ position: 1, startsInS: null })
    // bo comes after ana's second but a slot is free and bo has none running: bo starts.
    const bo = gate.enter('bo')
    expect(bo.place()).toBeNull()
    expect(await settled(bo.turn)).toBe(true)
    // cy waits for a slot; ana's second is first in line but waits for ana's first, not for bo.
    const cy = gate.enter('cy')
    now = 10_000
    ana1.progress(100, 1000) // 90 s left
    bo.progress(500, 1000) // 10 s left
    expect(ana2.place()).toEqual({ position: 1, startsInS: 90 })
    expect(cy.place()).toEqual({ position: 2, startsInS: 10 })
    // bo ends: cy starts though ana's second came first, since ana's first still runs.
    bo.leave()
    expect(await settled(cy.turn)).toBe(true)
    expect(await settled(ana2.turn)).toBe(false)
    ana1.leave()
    expect(await settled(ana2.turn)).toBe(true)
  })

  it('removes a cancelled waiting export from the line, moving those behind it up', async () => {
    let now = 0
    const gate = createExportGate({ perUser: 1, total: 1, queue: 5 }, () => now)
    const ana = gate.enter('ana')
    const bo = gate.enter('bo')
    const cy = gate.enter('cy')
    now = 10_000
    ana.progress(500, 1000)
    expect(cy.place()).toEqual({ position: 2, startsInS: 30 })
    bo.leave()
    expect(bo.place()).toBeNull()
    expect(cy.place()).toEqual({ position: 1, startsInS: 10 })
    ana.leave()
    expect(await settled(cy.turn)).toBe(true)
    // bo left the line: its turn never comes.
    expect(await settled(bo.turn)).toBe(false)
    expect(gate.running()).toBe(1)
  })

  it('refuses past the queue, in total and per person, naming the variable and when to try again', () => {
    let now = 0
    const gate = createExportGate({ perUser: 1, total: 2, queue: 2 }, () => now)
    const ana = gate.enter('ana')
    const bo = gate.enter('bo')
    now = 20_000
    // Half of ana's rows in 20 s: about 20 s left; bo's a quarter in 20 s: about 60 s left.
    ana.progress(500, 1000)
    bo.progress(250, 1000)
    gate.enter('ana') // waits for ana's first
    // A person may have as many waiting as running: ana's third is refused.
    const mine = refusalOf(gate, 'ana')!
    expect(mine).toBeInstanceOf(ExportRefused)
    expect(mine.status).toBe(429)
    expect(mine.retryAfterS).toBe(20)
    expect(mine.message).toMatch(
      /^You already have 1 export running and 1 waiting, the most one person may have \(EXPORTS_PER_USER\)\. .*about 20 s/,
    )
    gate.enter('cy') // the queue's second place
    const full = refusalOf(gate, 'dee')!
    expect(full.retryAfterS).toBe(20)
    expect(full.body.retryAfterMs).toBe(20_000)
    expect(full.message).toMatch(
      /^2 exports are running on this server, the most it runs at once \(EXPORTS_MAX\), so searches stay fast, and 2 more are waiting, the most its queue holds \(EXPORTS_QUEUE\)\. The soonest should finish in about 20 s: try again then\.$/,
    )
    expect([gate.running(), gate.waiting()]).toEqual([2, 2])
  })

  it("bounds a person's waiting exports when they run none: one person's burst does not take the whole queue", () => {
    const gate = createExportGate({ perUser: 2, total: 4, queue: 20 }, () => 0)
    for (const who of ['ada', 'ada', 'vic', 'vic']) gate.enter(who)
    // Eve runs nothing (every slot is busy): two of hers wait, the third is refused.
    gate.enter('eve')
    gate.enter('eve')
    const third = refusalOf(gate, 'eve')!
    expect(third).toBeInstanceOf(ExportRefused)
    expect(third.message).toMatch(/^You already have 2 waiting, the most one person may have \(EXPORTS_PER_USER\)\. /)
    // Others still find room in the line: an admin's export waits instead of being refused.
    expect(refusalOf(gate, 'boss')).toBeNull()
    expect([gate.running(), gate.waiting()]).toEqual([4, 3])
  })

  it('without a queue (EXPORTS_QUEUE=0) refuses as soon as a limit is reached', () => {
    let now = 0
    const gate = createExportGate({ perUser: 1, total: 2, queue: 0 }, () => now)
    const a = gate.enter('ana')
    expect(refusalOf(gate, 'ana')?.message).toMatch(
      /^You already have 1 export running, the most one person may run at once \(EXPORTS_PER_USER\)\. .*about 10 s/,
    )
    const b = gate.enter('bo')
    now = 20_000
    a.progress(500, 1000)
    b.progress(250, 1000)
    const refused = refusalOf(gate, 'cy')!
    expect(refused.retryAfterS).toBe(20)
    expect(refused.message).toMatch(/^2 exports are running on this server.*EXPORTS_MAX\), so searches stay fast\. .*about 20 s/)
    a.leave()
    gate.enter('cy').leave()
    expect([gate.running(), gate.waiting()]).toEqual([1, 0])
  })
})

/** The parts of a ServerResponse a waiting export touches: its events and an error envelope. */
class FakeResponse extends EventEmitter {
  destroyed = false
  headersSent = false
  status = 0
  body = ''
  writeHead(status: number) {
    this.status = status
    this.headersSent = true
    return this
  }
  end(chunk?: Buffer | string) {
    if (chunk) this.body += chunk.toString()
    return this
  }
}

describe('a waiting export', () => {
  /** An export that finds the only slot taken, and what became of it; the database is never reached. */
  function waitingExport() {
    const gate = createExportGate({ perUser: 1, total: 1, queue: 5 })
    const first = gate.enter('bo')
    const tracker = createExportTracker()
    const job = tracker.begin('ana', 'waiting-job-1')
    const req = new EventEmitter() as IncomingMessage
    const res = new FakeResponse()
    const logged: string[] = []
    const params = new Map([['numbers', '15550000001']])
    const done = streamExport({} as Db, req, res as unknown as ServerResponse, {
      filters: parseFilters(params),
      params,
      format: 'csv',
      tz: 'UTC',
      logStart: async () => {
        logged.push('start')
      },
      audit: () => {},
      log: () => {},
      gate,
      who: 'ana',
      job,
    })
    return { gate, first, tracker, res, req, done, logged }
  }

  it('says in its record that it is queued, its place and when it should start', async () => {
    const { gate, tracker, res, done, first } = waitingExport()
    expect(tracker.get('ana', 'waiting-job-1')).toMatchObject({ state: 'queued', queue: { position: 1, startsInS: null } })
    expect(gate.waiting()).toBe(1)
    expect(res.headersSent).toBe(false)
    // Ends the test's export without reaching the database: the client leaves, then the slot frees.
    res.emit('close')
    await done
    first.leave()
  })

  it('leaves the line when cancelled: the request is answered 409, the record says cancelled, nothing was logged as read', async () => {
    const { gate, tracker, res, done, logged } = waitingExport()
    expect(tracker.cancel('ana', 'waiting-job-1').record).toMatchObject({ state: 'cancelled', cancelledBy: 'you' })
    await done
    expect(gate.waiting()).toBe(0)
    expect(res.status).toBe(409)
    expect(JSON.parse(res.body)).toMatchObject({ error: { field: 'job', message: 'This export was cancelled before it started.' } })
    expect(tracker.get('ana', 'waiting-job-1')).toMatchObject({ state: 'cancelled', cancelledBy: 'you' })
    expect(tracker.get('ana', 'waiting-job-1').queue).toBeUndefined()
    expect(logged).toEqual([])
  })

  it('leaves the line when its client goes away, freeing its place for the next', async () => {
    const { gate, tracker, res, done, first, logged } = waitingExport()
    const next = gate.enter('cy')
    expect(next.place()?.position).toBe(2)
    res.destroyed = true
    res.emit('close')
    await done
    expect(gate.waiting()).toBe(1)
    expect(next.place()?.position).toBe(1)
    expect(tracker.get('ana', 'waiting-job-1')).toMatchObject({ state: 'cancelled', cancelledBy: 'browser' })
    expect(res.headersSent).toBe(false)
    expect(logged).toEqual([])
    first.leave()
    expect(await settled(next.turn)).toBe(true)
  })
})
