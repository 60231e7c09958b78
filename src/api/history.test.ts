import { describe, expect, it } from 'vitest'
import { ApiError } from './errors'
import { normaliseHistory } from './history'

const envelope = {
  success: '1',
  'message_count_requested ': 100,
  total_message_count: 2,
  created_date: '2020-01-01 00:00:00',
  most_recent_msg_id: 123456789012,
  most_recent_date: '2026-11-20 12:00:00',
  tid: 'JFKLDSA09809',
  number: '18323232323',
  optin: 'yes',
  messages: [
    {
      system_id: 123456789012,
      message_id: 'a'.repeat(32),
      GMTdate: '2026-11-20 12:00:00',
      tid: 'OTHER1',
      phone: '14155550123',
      direction: 'outbound',
      body: 'hi',
      mms: 'no',
      mms_url: '',
      status: '200 [x]',
    },
    { message_id: 'a'.repeat(32), body: null, mms: 'yes', mms_url: 'https://m.example/a.png', status: null },
  ],
}

describe('normaliseHistory', () => {
  it('accepts the trailing-space count key and numeric ids', () => {
    const page = normaliseHistory(envelope, 1, 100)
    expect(page.requested).toBe(100)
    expect(page.mostRecentId).toBe('123456789012')
    expect(page.messages[0]?.systemId).toBe('123456789012')
  })
  it('keeps duplicate message ids as separate rows with distinct keys', () => {
    const page = normaliseHistory(envelope, 51, 100)
    expect(page.messages.map((m) => m.key)).toEqual([`51:${'a'.repeat(32)}`, `52:${'a'.repeat(32)}`])
  })
  it('tolerates missing and null fields', () => {
    const m = normaliseHistory(envelope, 1, 100).messages[1]!
    expect(m.body).toBeNull()
    expect(m.phone).toBeNull()
    expect(m.status.label).toBe('Unknown')
    expect(m.mms).toBe(true)
  })
  it('reads messages written as an object keyed 0, 1… (PHP, a gap in its keys), in key order', () => {
    const [a, b] = envelope.messages
    const page = normaliseHistory({ ...envelope, messages: { '1': b, '0': a } }, 1, 100)
    expect(page.messages.map((m) => m.body)).toEqual(['hi', null])
  })
  it('turns a response missing messages into a bad_response ApiError naming the field', () => {
    const { messages: _drop, ...rest } = envelope
    expect(() => normaliseHistory(rest, 1, 10)).toThrow(ApiError)
    try {
      normaliseHistory(rest, 1, 10)
    } catch (e) {
      expect((e as ApiError).kind).toBe('bad_response')
      expect((e as ApiError).message).toContain('messages')
    }
  })
})
