import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as z from 'zod/mini'
import { safeParse } from 'zod/v4/core'
import { numberStatusAnswer, SYNC_STATES } from '../../contract/index-answers'
import { optText } from './client'
import { count, holdsWhole, indexRowFor, normaliseStatusNumbers, nullableText, parseStatus, sortNumbersAsWritten } from './index-status'

// The rules as a zod schema states them (what the status answer was parsed with before the
// in-place normaliser): the reference the fast path must agree with.
const reference = z.catch(
  z.array(
    z.looseObject({
      number: z.string(),
      tid: z.catch(z.string(), ''),
      state: z.catch(z.string(), 'never'),
      indexed: count,
      upstreamTotal: z.catch(z.nullable(z.number()), null),
      newestDate: nullableText,
      oldestDate: nullableText,
      lastSyncedAt: z.catch(optText, null),
      error: nullableText,
      progress: z.catch(z.nullable(z.object({ done: z.number(), total: z.number() })), null),
      removed: z.catch(z.boolean(), false),
      otherTids: z.catch(z.array(z.string()), []),
      forgottenAt: nullableText,
      finding: nullableText,
    }),
  ),
  [],
)

const anyValue = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
)
const field = <T>(good: fc.Arbitrary<T>) => fc.option(fc.oneof(good, anyValue), { nil: undefined })
const record = fc.record(
  {
    number: fc.oneof({ weight: 9, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) }, { weight: 1, arbitrary: anyValue }),
    tid: field(fc.string({ maxLength: 12 })),
    state: field(fc.constantFrom('idle', 'syncing', 'never', 'error')),
    indexed: field(fc.nat()),
    upstreamTotal: field(fc.option(fc.nat(), { nil: null })),
    newestDate: field(fc.constant('2026-11-20T12:00:00Z')),
    oldestDate: field(fc.integer()),
    lastSyncedAt: field(fc.string()),
    error: field(fc.string()),
    progress: field(fc.record({ done: fc.oneof(fc.nat(), anyValue), total: fc.oneof(fc.nat(), anyValue), extra: fc.option(fc.string()) })),
    fullyIndexed: field(fc.boolean()),
    removed: field(fc.boolean()),
    forgottenAt: field(fc.constant('2026-11-29T04:55:00Z')),
    finding: field(fc.string()),
    otherTids: field(
      fc.array(fc.oneof({ weight: 9, arbitrary: fc.string({ maxLength: 6 }) }, { weight: 1, arbitrary: anyValue }), { maxLength: 3 }),
    ),
  },
  { requiredKeys: [] },
)

describe('normaliseStatusNumbers', () => {
  it('gives what the zod schema gives, for any list of records (JSON round trip, as they arrive)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof({ weight: 19, arbitrary: record }, { weight: 1, arbitrary: anyValue }), { maxLength: 5 }), (list) => {
        const json = JSON.stringify(list)
        const parsed = reference.parse(JSON.parse(json))
        const expected =
          parsed.length && parsed.every((r) => typeof r.number === 'string') ? sortNumbersAsWritten(parsed as { number: string }[]) : parsed
        expect(normaliseStatusNumbers(JSON.parse(json) as unknown[])).toEqual(expected)
      }),
      { numRuns: 3000 },
    )
  })

  it("keeps every record the server's declared schema allows as it is (contract/index-answers.ts), so the fast path reads the same answer", () => {
    const text = fc.option(fc.string({ maxLength: 8 }), { nil: null })
    const valid = fc.record(
      {
        number: fc.string({ minLength: 1, maxLength: 12 }),
        tid: fc.string({ maxLength: 8 }),
        state: fc.constantFrom(...SYNC_STATES),
        indexed: fc.nat(),
        upstreamTotal: fc.option(fc.nat(), { nil: null }),
        newestDate: text,
        oldestDate: text,
        lastSyncedAt: text,
        error: text,
        progress: fc.option(fc.record({ done: fc.nat(), total: fc.nat() }), { nil: null }),
        removed: fc.boolean(),
        otherTids: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
        forgottenAt: text,
        finding: text,
      },
      {
        requiredKeys: [
          'number',
          'tid',
          'state',
          'indexed',
          'upstreamTotal',
          'newestDate',
          'oldestDate',
          'lastSyncedAt',
          'error',
          'progress',
        ],
      },
    )
    fc.assert(
      fc.property(fc.array(valid, { maxLength: 6 }), (list) => {
        for (const r of list) expect(safeParse(numberStatusAnswer, r).success).toBe(true)
        const read = normaliseStatusNumbers(JSON.parse(JSON.stringify(list)) as unknown[])
        expect(read).toHaveLength(list.length)
        // Each record as sent (the fields it left out take their "not said" defaults, which the schema also allows).
        const sent = sortNumbersAsWritten([...list])
        read.forEach((r, i) => {
          expect(r).toMatchObject(sent[i]!)
          expect(safeParse(numberStatusAnswer, r).success).toBe(true)
        })
      }),
    )
  })

  it('lists numbers as they are written: a number stored with 10 digits among the others of its area code', () => {
    const list = ['18004840451', '2129073885', '12125550100', '18889242759', '5126796598', '12139550100'].map((number) => ({ number }))
    expect(normaliseStatusNumbers(list).map((r) => r.number)).toEqual([
      '12125550100',
      '2129073885',
      '12139550100',
      '5126796598',
      '18004840451',
      '18889242759',
    ])
  })

  it('keeps a well-formed record as it is, extra fields and all', () => {
    const r = {
      number: '18323232323',
      tid: 'PUHMGWS98301',
      state: 'idle',
      indexed: 2345,
      upstreamTotal: 2345,
      newestDate: '2026-11-20T12:00:00Z',
      oldestDate: '2026-10-01T00:00:00Z',
      lastSyncedAt: '2026-11-22T07:10:51Z',
      error: null,
      progress: null,
      fullyIndexed: true,
      removed: false,
      otherTids: ['PUHMGWS98302'],
      forgottenAt: null,
      finding: null,
    }
    expect(normaliseStatusNumbers([{ ...r }])).toEqual([r])
    expect(normaliseStatusNumbers([{ ...r }, { tid: 'no number' }])).toEqual([])
  })
})

describe('the overall progress in the status answer', () => {
  const base = { enabled: true, engine: 'pglite', numbers: [], freshness: {} }
  it('reads the figures and whether the server indexes on its own', () => {
    const progress = { numbersTotal: 60, numbersDone: 12, messages: 4, messagesTotal: 9, ratePerSecond: 3, secondsLeft: 2, running: true }
    const s = parseStatus({ ...base, autoSync: false, progress })
    expect(s.autoSync).toBe(false)
    expect(s.progress).toEqual(progress)
  })
  it('says nothing rather than guess when an older server leaves them out, and tolerates wrong types', () => {
    expect(parseStatus(base)).toMatchObject({ autoSync: null, progress: null })
    const s = parseStatus({ ...base, autoSync: 'yes', progress: { numbersTotal: '60', running: 1, ratePerSecond: 'fast' } })
    expect(s.autoSync).toBeNull()
    expect(s.progress).toEqual({
      numbersTotal: 0,
      numbersDone: 0,
      messages: 0,
      messagesTotal: 0,
      ratePerSecond: null,
      secondsLeft: null,
      running: false,
    })
  })
})

describe("a number's further lines (contract/lines.ts)", () => {
  const whole = { state: 'idle', indexed: 36, upstreamTotal: 36, lastSyncedAt: '2026-11-22T07:10:51Z' }
  const status = parseStatus({
    enabled: true,
    numbers: [
      { number: '18323232323~2', tid: 'LINE2', ...whole, lineOf: '18323232323' },
      { number: '18005550100', tid: 'B', ...whole },
      { number: '18323232323', tid: 'OWN', ...whole, otherTids: ['LINE2'], lineTids: ['LINE2'] },
    ],
  })

  it('sorts each line right after its number, and keeps what says whose it is', () => {
    expect(status.numbers.map((n) => n.number)).toEqual(['18005550100', '18323232323', '18323232323~2'])
    expect(status.numbers[1]).toMatchObject({ lineTids: ['LINE2'] })
    expect(status.numbers[2]).toMatchObject({ lineOf: '18323232323', tid: 'LINE2' })
  })

  it("finds the row that holds a number's history under a tid: its own, its line's, or none", () => {
    expect(indexRowFor(status, '18323232323', 'OWN')?.number).toBe('18323232323')
    expect(indexRowFor(status, '18323232323')?.number).toBe('18323232323')
    // The second tid's history is the line's: go to date, the conversations and the export read that row.
    expect(indexRowFor(status, '18323232323', 'LINE2')?.number).toBe('18323232323~2')
    expect(holdsWhole(status, '18323232323', 'LINE2')).toBe(true)
    // A tid the index holds no history of: nothing is read from the number's own row.
    expect(indexRowFor(status, '18323232323', 'ELSE')).toBeUndefined()
    expect(holdsWhole(status, '18323232323', 'ELSE')).toBe(false)
  })
})
