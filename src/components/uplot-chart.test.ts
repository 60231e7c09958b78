import { describe, expect, test } from 'vitest'
import { dayTickLabels } from './uplot-chart'

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 1000

describe('day axis labels', () => {
  test('ticks 28 days apart name their day: two in one month are told apart (both read "Mar")', () => {
    const labels = dayTickLabels([day('2026-02-01'), day('2026-03-01'), day('2026-03-29'), day('2026-04-26')], 28 * 86_400)
    expect(labels).toEqual(['Feb 1', 'Mar 1', 'Mar 29', 'Apr 26'])
    expect(new Set(labels).size).toBe(labels.length)
  })

  test('a UTC midnight is named as that date, whatever the browser zone; ticks a year apart name the year', () => {
    expect(dayTickLabels([day('2026-11-01')], 86_400)).toEqual(['Nov 1'])
    expect(dayTickLabels([day('2025-01-01'), day('2026-01-01')], 364 * 86_400)).toEqual(['2025', '2026'])
  })
})
