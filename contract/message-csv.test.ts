import { describe, expect, it } from 'vitest'
import { upstreamStatusCode } from './upstream-values.ts'
import { MESSAGE_CSV_COLUMNS, messageCsvCells, statusWord } from './message-csv.ts'

describe('the status of every message export', () => {
  it('is one word whatever the upstream wrote, its own text kept beside it', () => {
    const spellings = {
      '200 [Possible status and meaning: 200 = success, 400 = error]': 'success',
      '200': 'success',
      '200 Delivered': 'success',
      '400 [Possible status and meaning: 200 = success, 400 = error]': 'error',
      '503 Carrier busy': 'error',
      pending: 'unknown',
      '': 'unknown',
    }
    for (const [raw, word] of Object.entries(spellings)) {
      const cells = messageCsvCells({
        number: '1',
        ordinal: 1,
        position: 1,
        dateUtc: '',
        dateLocal: '',
        party: null,
        direction: null,
        body: null,
        mms: false,
        mediaUrl: null,
        status: raw,
        statusCode: upstreamStatusCode(raw),
        messageId: null,
        systemId: null,
        tid: null,
        messageTid: null,
      })
      const at = (c: (typeof MESSAGE_CSV_COLUMNS)[number]) => cells[MESSAGE_CSV_COLUMNS.indexOf(c)]
      expect([at('status'), at('status_raw')], raw).toEqual([word, raw])
    }
    expect(statusWord(null)).toBe('unknown')
  })
})
