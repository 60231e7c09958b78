import { describe, expect, it } from 'vitest'
import type { Check, Endpoint } from '../../api/callback-endpoints'
import { callbackHistoryHref } from '../../lib/callback-links'
import { callbacksSearch, parseSearch } from '../../lib/route-params'
import { watchNotesByNumber, watchNoteWords } from './watch-notes'

const check = (over: Partial<Check>): Check => ({
  at: '2026-03-02T14:05:00.000Z',
  outcome: 'up',
  failure: null,
  detail: '',
  status: 200,
  latencyMs: 12,
  tlsProtocol: 'TLSv1.3',
  tlsValidTo: null,
  tlsDays: 200,
  ...over,
})
const ep = (url: string, webhookOf: string[], dlrOf: string[], latest: Check | null): Endpoint => ({
  key: url.slice(0, 16).padEnd(16, '0'),
  url,
  webhookOf,
  dlrOf,
  latest,
  down: [],
})

describe('watch notes on the numbers page', () => {
  it('names each number whose webhook or dlr address failed, redirected or has a certificate near expiry', () => {
    const notes = watchNotesByNumber([
      ep('https://up.example/in', ['18005550001', '18005550002'], [], check({})),
      ep('https://down.example/dlr', [], ['+18005550001'], check({ outcome: 'failing', failure: 'http', status: 500 })),
      ep('https://moved.example/in', ['18005550003'], ['18005550003'], check({ outcome: 'redirect', status: 301 })),
      ep('https://soon.example/in', ['18005550004'], [], check({ tlsDays: 9 })),
      ep('https://later.example/in', ['18005550005'], [], check({ tlsDays: 15 })),
      ep('https://private.example/in', ['18005550006'], [], check({ outcome: 'private', tlsDays: null })),
      ep('https://new.example/in', ['18005550007'], [], null),
    ])
    expect([...notes.keys()].sort()).toEqual(['18005550001', '18005550003', '18005550004'])
    expect(notes.get('18005550001')!.map(watchNoteWords)).toEqual(['DLR: endpoint failing'])
    expect(notes.get('18005550003')!.map(watchNoteWords)).toEqual(['Webhook: redirects', 'DLR: redirects'])
    expect(notes.get('18005550004')!.map(watchNoteWords)).toEqual(['Webhook: certificate expires within 14 days'])
  })

  it('links a number to its callback history by an address the Callbacks page reads back', () => {
    const href = callbackHistoryHref('+1 (800) 555-0001')
    expect(href).toBe('/callbacks?tab=changes&number=18005550001')
    const read = parseSearch(callbacksSearch, new URL(href, 'http://x').searchParams)
    expect(read).toMatchObject({ tab: 'changes', number: '18005550001' })
  })
})
