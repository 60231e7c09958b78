import { describe, expect, it } from 'vitest'
import { ProxyError } from '../errors.ts'
import { parseFilters } from './params.ts'

const refusal = (given: Record<string, string>) => {
  try {
    parseFilters(new Map(Object.entries(given)))
  } catch (err) {
    if (err instanceof ProxyError) return err.body
    throw err
  }
  return null
}

/** Every refusal of a search's parameters, word for word: the page and API clients show these messages. */
describe('parseFilters refuses each bad filter with a message naming its field', () => {
  const digitsOnly = 'party must be a phone number: digits, with any spaces, brackets, dots, dashes or a leading +.'
  const anyDate = (f: string) => `${f} must be a date (YYYY-MM-DD) or an ISO 8601 timestamp with a zone (2026-11-21T12:04:00Z).`
  const status = 'status must be success, error, other or a three-digit code such as 503.'
  const accountNumbers = 'numbers must be comma-separated account numbers (6 to 15 digits each).'
  it.each([
    [{ q: 'a\u0000b' }, 'q', 'q must not contain NUL characters.'],
    [{ q: 'x'.repeat(501) }, 'q', 'q must be at most 500 characters.'],
    [{ party: 'abc' }, 'party', digitsOnly],
    [{ party: '14155550123x' }, 'party', digitsOnly],
    [{ party: '()' }, 'party', 'party must contain digits (any formatting is ignored).'],
    [{ party: '1'.repeat(16) }, 'party', 'party has more digits than a phone number (at most 15).'],
    [{ direction: 'sideways' }, 'direction', 'direction must be inbound or outbound.'],
    [{ direction: 'Inbound' }, 'direction', 'direction must be inbound or outbound.'],
    [{ status: 'failed' }, 'status', status],
    [{ status: '5031' }, 'status', status],
    [{ media: 'true' }, 'media', 'media must be yes or no.'],
    [{ from: '2026-02-31' }, 'from', 'from is not a real date: use YYYY-MM-DD.'],
    [{ to: '2026-11-20T24:00:00Z' }, 'to', anyDate('to')],
    [{ to: '9999-12-31' }, 'to', 'to must be a date from 1900-01-01 to 2999-12-31.'],
    [{ from: 'soon' }, 'from', anyDate('from')],
    [{ from: '2026-11-20', to: '2026-11-01' }, 'to', 'to must not be before from.'],
    [{ numbers: '12;DROP' }, 'numbers', accountNumbers],
    [{ numbers: ',' }, 'numbers', accountNumbers],
    [
      { numbers: Array.from({ length: 1001 }, (_, i) => String(1_000_000 + i)).join(',') },
      'numbers',
      'numbers lists at most 1000 numbers.',
    ],
    // Read in the URL's order, the first refusal answers.
    [{ status: 'failed', direction: 'sideways' }, 'direction', 'direction must be inbound or outbound.'],
    [{ numbers: 'x', q: 'a\u0000' }, 'q', 'q must not contain NUL characters.'],
  ])('%j', (given, field, message) => {
    expect(refusal(given)).toEqual({ kind: 'invalid_request', field, message })
  })
})

describe('parseFilters reads each filter as the index searches it', () => {
  it('turns words into values: digits, a code, a flag, instants and a list without repeats', () => {
    const f = parseFilters(
      new Map(
        Object.entries({
          q: 'refund',
          party: '+1 (415) 555-0123',
          direction: 'inbound',
          status: '503',
          media: 'no',
          from: '2026-11-01',
          to: '2026-11-20T12:00:00Z',
          numbers: '+18323232323, 18323232323,18552009444',
        }),
      ),
    )
    expect(f).toEqual({
      q: 'refund',
      party: '14155550123',
      direction: 'inbound',
      status: { kind: 'code', code: 503 },
      media: false,
      dates: { from: '2026-11-01T00:00:00.000Z', toExclusive: null, toInclusive: '2026-11-20T12:00:00.000Z' },
      numbers: ['18323232323', '18552009444'],
    })
  })

  it('reads a whole `to` day as the next midnight, and leaves out what is not set', () => {
    expect(parseFilters(new Map(Object.entries({ status: 'other', media: 'yes', to: '2026-11-20' })))).toEqual({
      q: null,
      party: null,
      direction: null,
      status: { kind: 'other' },
      media: true,
      dates: { from: null, toExclusive: '2026-11-21T00:00:00.000Z', toInclusive: null },
      numbers: null,
    })
    expect(parseFilters(new Map([['q', '']]))).toEqual({
      q: null,
      party: null,
      direction: null,
      status: null,
      media: null,
      dates: null,
      numbers: null,
    })
  })
})
