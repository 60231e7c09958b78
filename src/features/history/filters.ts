import type { Message } from '../../api/history'
import { phoneQueryDigits } from '../../lib/phone'

export interface MessageFilters {
  direction: 'all' | 'outbound' | 'inbound'
  status: 'all' | 'Success' | 'Error' | 'Unknown'
  media: boolean
  q: string
}

export const filtersActive = (f: MessageFilters) => f.direction !== 'all' || f.status !== 'all' || f.media || f.q.trim() !== ''

/** Filters act on the loaded rows only: the API has no server-side filtering. */
export function filterMessages(messages: Message[], f: MessageFilters): Message[] {
  if (!filtersActive(f)) return messages
  const q = f.q.trim().toLowerCase()
  const qDigits = phoneQueryDigits(q)
  return messages.filter((m) => {
    if (f.direction !== 'all' && (m.direction ?? '').toLowerCase() !== f.direction) return false
    if (f.status !== 'all' && m.status.label !== f.status) return false
    if (f.media && !m.mms) return false
    if (q) {
      const inBody = (m.body ?? '').toLowerCase().includes(q)
      const inPhone = qDigits ? (m.phone ?? '').includes(qDigits) : (m.phone ?? '').includes(q)
      if (!inBody && !inPhone) return false
    }
    return true
  })
}
