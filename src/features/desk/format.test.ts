import { expect, test } from 'vitest'
import { formatWait, optStateWords, parseThreshold, quietDayRows, quietDaySeries } from './format.ts'

test('waits are written in the largest two units', () => {
  expect(formatWait(30_000)).toBe('under a minute')
  expect(formatWait(20 * 60_000)).toBe('20 min')
  expect(formatWait(2 * 3_600_000)).toBe('2 h')
  expect(formatWait(2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min')
  expect(formatWait(86_400_000)).toBe('1 day')
  expect(formatWait(3 * 86_400_000 + 2 * 3_600_000 + 59_000)).toBe('3 days 2 h')
  expect(formatWait(Number.NaN)).toBe('under a minute')
})

test('a threshold is whole minutes from 0 to a year, and a bad one names the field', () => {
  expect(parseThreshold(' 15 ')).toEqual({ minutes: 15 })
  expect(parseThreshold('0')).toEqual({ minutes: 0 })
  for (const bad of ['', '-1', '2.5', 'abc', '600000'])
    expect(parseThreshold(bad)).toMatchObject({ error: expect.stringMatching(/^Threshold \(minutes\)/) })
})

test("opt states in words, as the server's ledger names them", () => {
  expect(optStateWords('opted-out')).toBe('Opted out')
  expect(optStateWords('opted-in')).toBe('Opted back in')
})

test('the quiet-hours chart has every day from the first to the last send, the days between empty', () => {
  const s = quietDaySeries([
    { day: '2026-02-27', quiet: 2 },
    { day: '2026-03-02', quiet: 5 },
  ])
  // 27 and 28 February, then 1 and 2 March: four days, 2026 not being a leap year.
  expect(s.x).toEqual([0, 1, 2, 3].map((i) => Date.UTC(2026, 1, 27 + i) / 1000))
  expect(s.quiet).toEqual([2, null, null, 5])
  expect(quietDaySeries([{ day: '2026-11-20', quiet: 1 }])).toEqual({ x: [Date.UTC(2026, 10, 20) / 1000], quiet: [1] })
  expect(quietDaySeries([])).toEqual({ x: [], quiet: [] })
  // The table lists the chart's days: the empty ones too, as 0 (it skipped them while the chart kept them).
  expect(quietDayRows(s)).toEqual([
    { day: '2026-02-27', quiet: 2 },
    { day: '2026-02-28', quiet: 0 },
    { day: '2026-03-01', quiet: 0 },
    { day: '2026-03-02', quiet: 5 },
  ])
})
