import type { PageRecord } from '../index/parse.ts'

/** A made-up history record for the sync's tests: ordinal n's ids, date (a minute apart), one of seven parties, body and status follow from n. */
export const record = (ordinal: number): PageRecord => ({
  tid: 'TID1',
  systemId: `S${ordinal}`,
  messageId: `M${ordinal}`,
  date: new Date(Date.UTC(2026, 0, 1) + ordinal * 60_000).toISOString(),
  dateRaw: null,
  phone: `+1555000${String(ordinal % 7).padStart(4, '0')}`,
  partyDigits: `1555000${String(ordinal % 7).padStart(4, '0')}`,
  direction: ordinal % 2 ? 'inbound' : 'outbound',
  body: ordinal % 11 ? `message ${ordinal % 13}` : 'STOP',
  mms: false,
  mediaUrl: null,
  status: ordinal % 5 ? '200 delivered' : '480 failed',
  statusCode: ordinal % 5 ? 200 : 480,
})
