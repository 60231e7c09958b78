import { describe, expect, it } from 'vitest'
import { parsePage } from './parse.ts'

const record = (id: number) => ({ system_id: String(id), GMTdate: '2026-11-20 12:00:00', phone: '14155550100', body: `m${id}` })

describe('history pages as other servers write them', () => {
  it('reads JSON led by a UTF-8 byte order mark', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify({ total_message_count: 1, messages: [record(1)] })),
    ])
    expect(parsePage(body).records.map((r) => r.systemId)).toEqual(['1'])
  })

  it('reads messages written as an object keyed 0, 1, 2… (PHP, a gap in its keys) in key order', () => {
    const page = { total_message_count: '3', messages: { '0': record(3), '2': record(1), '1': record(2) } }
    expect(parsePage(JSON.stringify(page)).records.map((r) => r.systemId)).toEqual(['3', '2', '1'])
    expect(() => parsePage(JSON.stringify({ total_message_count: 1, messages: { a: record(1) } }))).toThrow(/no messages list/)
  })

  it('takes an empty total for none, and a total of 0 beside records for a page it cannot place', () => {
    expect(() => parsePage(JSON.stringify({ total_message_count: '', messages: [record(1)] }))).toThrow(/no usable total_message_count/)
    expect(() => parsePage(JSON.stringify({ total_message_count: 0, messages: [record(1)] }))).toThrow(/total of 0 messages but holds 1/)
    expect(parsePage(JSON.stringify({ total_message_count: 0, messages: [] })).total).toBe(0)
  })
})
