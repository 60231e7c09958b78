import { describe, expect, it } from 'vitest'
import { changeWords, checkNowWords, periodWords, windowWords } from './callback-words'

describe('callback words', () => {
  it('says a window between two listings, the day once when it is the same', () => {
    const w = windowWords('2026-03-02T14:05:00Z', '2026-03-02T14:10:00Z')
    expect(w).toMatch(/^between .*2026.* and [^,]+$/)
  })
  it('says a change from what to what, and (none) for an empty value', () => {
    expect(changeWords({ id: '1', number: '1', kind: 'webhook', from: 'https://a.example/', to: '', windowStart: '', windowEnd: '' })).toBe(
      'Webhook changed from https://a.example/ to (none)',
    )
  })
  it('says a period that goes on', () => {
    const p = {
      number: '1',
      callback: 'webhook' as const,
      reason: 'missing' as const,
      url: '',
      start: { earliest: '2026-03-02T14:05:00Z', latest: '2026-03-02T14:10:00Z' },
      end: null,
      count: 0,
    }
    expect(periodWords(p)).toMatch(/^Since some time between .* and still so\.$/)
  })
  it('says what Check now did, one sentence each, with no doubled full stop', () => {
    expect(checkNowWords({ listing: { ok: true, baseline: true }, checked: 1, findings: 0 })).toBe(
      'First listing taken (the baseline). 1 address checked.',
    )
    expect(checkNowWords({ listing: { ok: true, baseline: false, changes: 1 }, checked: 12, findings: 0 })).toBe(
      'Listed: 1 change. 12 addresses checked.',
    )
    expect(checkNowWords({ listing: { ok: false, error: 'The messaging service is failing (HTTP 503).' }, checked: 0, findings: 0 })).toBe(
      'The listing failed (The messaging service is failing (HTTP 503)): recorded as a gap. 0 addresses checked.',
    )
  })
})
