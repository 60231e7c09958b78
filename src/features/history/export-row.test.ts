import { describe, expect, it } from 'vitest'
import { MESSAGE_CSV_COLUMNS } from '../../../contract/message-csv'
import type { Message } from '../../api/history'
import { parseStatus } from '../../lib/status'
import { exportHeader, messageRow } from './columns'

const message: Message = {
  key: '3:abc',
  position: 3,
  systemId: '200000000042',
  messageId: 'a'.repeat(32),
  date: '2026-11-20 12:04:05',
  dateMs: Date.UTC(2026, 10, 20, 12, 4, 5),
  tid: 'MSGTID1',
  phone: '19175550142',
  direction: 'inbound',
  body: 'Hello',
  mms: true,
  mediaUrl: 'https://media.example/a.jpg',
  status: parseStatus('200 [Possible status and meaning: 200 = success, 400 = error]'),
}

describe("the History page's export rows", () => {
  it('are the one message layout of every export, each value under its column', () => {
    const header = exportHeader('utc')
    expect(header).toEqual(MESSAGE_CSV_COLUMNS.map((c) => (c === 'date_local' ? 'date_local (UTC)' : c)))
    const row = messageRow(message, 'utc', { number: '18323232323', tid: 'NUMTID9', total: 10 })
    expect(Object.fromEntries(header.map((h, i) => [h, row[i]]))).toEqual({
      number: '18323232323',
      // Position 3 of 10, newest first, is the 8th message counted from the oldest.
      ordinal: 8,
      position: 3,
      date_utc: '2026-11-20T12:04:05Z',
      'date_local (UTC)': '2026-11-20 12:04:05',
      party: '19175550142',
      direction: 'inbound',
      body: 'Hello',
      mms: 'yes',
      media_url: 'https://media.example/a.jpg',
      status: 'success',
      status_raw: '200 [Possible status and meaning: 200 = success, 400 = error]',
      status_code: 200,
      message_id: 'a'.repeat(32),
      system_id: '200000000042',
      tid: 'NUMTID9',
      message_tid: 'MSGTID1',
    })
  })

  it('keep a date the upstream sent in another form as sent, and leave the ordinal empty without a total', () => {
    const row = messageRow({ ...message, date: 'yesterday', dateMs: null }, 'utc', { number: '1', tid: 'T', total: null })
    const header = exportHeader('utc')
    expect(row[header.indexOf('date_utc')]).toBe('yesterday')
    expect(row[header.indexOf('ordinal')]).toBe('')
  })
})
