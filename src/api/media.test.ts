import { describe, expect, it } from 'vitest'
import { mediaSrc } from './media'

describe('mediaSrc', () => {
  it('names an indexed message by number and ordinal, a page message by number and ids, never by address', () => {
    expect(mediaSrc({ number: '+1 (832) 323-2323', ordinal: 17, systemId: '5', messageId: 'a' })).toBe(
      '/api/media?number=18323232323&ordinal=17',
    )
    expect(mediaSrc({ number: '18323232323', systemId: ' 200000000001 ', messageId: 'ab/c' })).toBe(
      '/api/media?number=18323232323&system=200000000001&message=ab%2Fc',
    )
    expect(mediaSrc({ number: '18323232323', systemId: '', messageId: 'abc' })).toBe('/api/media?number=18323232323&message=abc')
  })

  it('gives nothing for a message the server could not look up', () => {
    expect(mediaSrc({ number: '123', systemId: '1', messageId: 'a' })).toBeNull()
    expect(mediaSrc({ number: null, systemId: '1', messageId: 'a' })).toBeNull()
    expect(mediaSrc({ number: '18323232323', systemId: null, messageId: '  ' })).toBeNull()
    expect(mediaSrc({ number: '18323232323', systemId: '1', messageId: 'a b' })).toBeNull()
    expect(mediaSrc({ number: '18323232323', systemId: '1'.repeat(129), messageId: null })).toBeNull()
  })
})
