import { describe, expect, it } from 'vitest'
import { createRateMeter } from './rate-meter.ts'
import { overallProgress } from './sync.ts'
import type { Queryable } from '../db/types.ts'

/** One account row as overallProgress reads it: 60 numbers, 12 done, 40,000 of 100,000 messages. */
const account: Queryable = {
  query: async () => ({ rows: [{ total: 60, done: 12, messages: 40_000, goal: 100_000, running: 1 }] }) as never,
} as Queryable

describe('the sync rate the index status reports', () => {
  it('follows the last half minute, not the average since the first sync', async () => {
    let stored = 0
    const t0 = 1_000_000
    const meter = createRateMeter(() => stored, { timer: false, clock: () => t0 })
    // A first sync stores 6,000 messages in a minute, then the server is idle for an hour.
    for (let s = 1; s <= 60; s++) {
      stored += 100
      meter.sample(t0 + s * 1000)
    }
    expect(meter.window(t0 + 60_000)).toEqual({ messages: 3_000, since: t0 + 30_000 })
    const hour = t0 + 3_660_000
    expect(meter.window(hour)).toEqual({ messages: 0, since: null })
    // A new sync runs at 500 messages a second for 10 s.
    for (let s = 1; s <= 10; s++) {
      stored += 500
      meter.sample(hour + s * 1000)
    }
    const now = hour + 10_000
    const p = await overallProgress(account, meter.window(now), now)
    expect(p.ratePerSecond).toBe(500)
    expect(p.secondsLeft).toBe(120)
    // The average since the first sync would say 11,000 messages in an hour: 3 a second, 6 hours left.
    const sinceStart = await overallProgress(account, { messages: stored, since: t0 }, now)
    expect(sinceStart.ratePerSecond).toBeLessThan(10)
  })

  it('reports no rate and no time left while nothing is stored', async () => {
    const meter = createRateMeter(() => 5, { timer: false, clock: () => 0 })
    meter.sample(20_000)
    const p = await overallProgress(account, meter.window(25_000), 25_000)
    expect(p).toMatchObject({ ratePerSecond: null, secondsLeft: null, numbersDone: 12, numbersTotal: 60 })
  })
})

describe('the time left on an account whose numbers are mostly not read yet', () => {
  it('counts each unread number as the median of the totals read, so the measured rate gives a time from the first minute', async () => {
    // 10,000 numbers: 281 read (one of a million among them; their median 90), 9,719 never read.
    const large: Queryable = {
      query: async () =>
        ({
          rows: [{ total: 10_000, done: 270, messages: 1_020_000, goal: 1_025_200, running: 9_720, unread: 9_719, median: 90 }],
        }) as never,
    } as Queryable
    const p = await overallProgress(large, { messages: 470 * 30, since: 0 }, 30_000)
    expect(p.ratePerSecond).toBe(470)
    expect(p.secondsLeft).toBe(Math.ceil((5_200 + 9_719 * 90) / 470))
  })
})
