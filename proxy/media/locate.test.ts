import { describe, expect, it } from 'vitest'
import type { RequestContext } from '../http-types.ts'
import { createServedMedia, type ServedRecord } from './locate.ts'

/** The ledger of media on served history pages: per sign-in, bounded in count and in age. */

const ctxOf = (name: string, sessionId: string): RequestContext => ({
  principal: { name, role: 'viewer', via: 'password', sessionId },
  address: '127.0.0.1',
  audit: async () => {},
  logRead: async () => {},
})
const record = (i: number, url = `https://media.example/${i}.png`): ServedRecord => ({
  systemId: String(1000 + i),
  messageId: `m${i}`,
  partyDigits: '14155550123',
  mediaUrl: url,
})
const ref = (i: number) => ({ number: '15550001111', system: String(1000 + i), message: `m${i}` })

describe('the served-media ledger', () => {
  it('answers only the sign-in that was served the page, for that number and those ids', () => {
    const served = createServedMedia()
    const vic = ctxOf('vic', 's1')
    served.remember(vic, '15550001111', [record(1), { ...record(2), mediaUrl: null }])
    expect(served.find(vic, ref(1))).toEqual([{ url: 'https://media.example/1.png', number: '15550001111', party: '14155550123' }])
    expect(served.find(vic, ref(2))).toEqual([])
    expect(served.find(ctxOf('vic', 's2'), ref(1))).toEqual([])
    expect(served.find(ctxOf('ada', 's1'), ref(1))).toEqual([])
    expect(served.find(vic, { ...ref(1), number: '19999999999' })).toEqual([])
    expect(served.find(vic, { ...ref(1), message: null })).toEqual([])
  })

  it('keeps at most its bound, the oldest going first, and forgets pages past their age', () => {
    let now = 0
    const served = createServedMedia(100, 60_000, () => now)
    const vic = ctxOf('vic', 's1')
    served.remember(
      vic,
      '15550001111',
      Array.from({ length: 150 }, (_, i) => record(i)),
    )
    expect(served.find(vic, ref(0))).toEqual([])
    expect(served.find(vic, ref(49))).toEqual([])
    expect(served.find(vic, ref(50))).toHaveLength(1)
    expect(served.find(vic, ref(149))).toHaveLength(1)
    now = 60_001
    expect(served.find(vic, ref(149))).toEqual([])
    // Served again, it is known again; the stale ones are dropped on the next page.
    served.remember(vic, '15550001111', [record(149)])
    expect(served.find(vic, ref(149))).toHaveLength(1)
    expect(served.find(vic, ref(100))).toEqual([])
  })

  it('gives every distinct media under one pair of ids, so an ambiguous message can be refused', () => {
    const served = createServedMedia()
    const vic = ctxOf('vic', 's1')
    served.remember(vic, '15550001111', [record(1), record(1, 'https://media.example/other.png')])
    expect(served.find(vic, ref(1)).map((m) => m.url)).toEqual(['https://media.example/1.png', 'https://media.example/other.png'])
  })
})
