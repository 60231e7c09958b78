// @vitest-environment happy-dom
import { createMemoryHistory } from '@tanstack/react-router'
import { describe, expect, it } from 'vitest'
import { customerHref } from '../components/customer-link'
import { messageHref, threadHref } from '../features/history/columns'
import { createAppRouter } from './routes'

/**
 * The links a table row holds are written by hand (components/plain-link.tsx): each must be the
 * address the router's Link gave, defaults left out, every character encoded as it encodes it.
 */
async function router() {
  const r = createAppRouter({ history: createMemoryHistory({ initialEntries: ['/'] }) })
  await r.load()
  return r
}

const NUMBERS = ['18323232323', '+447700900123', 'a/b?c#d', '1 2']
const ZONES = ['local', 'utc', null, undefined] as const
const TIDS = ['PUHMGWS98301', 'a b&c=d', '']
const PARTIES = ['13105831111', '+1 (415) 555-0123', '']

describe('row links written by hand', () => {
  it('a message page: number, ordinal, tid and zone as the router writes them', async () => {
    const r = await router()
    let checked = 0
    for (const number of NUMBERS)
      for (const tz of ZONES)
        for (const tid of TIDS)
          for (const ordinal of [1, 2345, 999_999_999]) {
            const search = { tid, tz }
            expect(messageHref({ number, ordinal, search })).toBe(
              r.buildLocation({ to: '/numbers/$number/messages/$ordinal', params: { number, ordinal }, search }).href,
            )
            checked++
          }
    expect(checked).toBe(NUMBERS.length * ZONES.length * TIDS.length * 3)
  })

  it('a thread: number, tid, party and zone as the router writes them', async () => {
    const r = await router()
    for (const number of NUMBERS)
      for (const tz of ZONES)
        for (const tid of TIDS)
          for (const party of PARTIES) {
            const search = { tid, party, tz }
            expect(threadHref({ number, search })).toBe(r.buildLocation({ to: '/numbers/$number/thread', params: { number }, search }).href)
          }
  })

  it('a customer page: the party’s digits as the router writes them', async () => {
    const r = await router()
    for (const party of ['13105831111', '4155550123', '1']) {
      expect(customerHref(party)).toBe(r.buildLocation({ to: '/desk/customer', search: { party } }).href)
    }
    expect(customerHref('13105831111')).toBe('/desk/customer?party=13105831111')
  })
})
