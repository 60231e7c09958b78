import { useQuery } from '@tanstack/react-query'
import type { Message } from '../../api/history'
import { historyQuery } from '../../api/history'
import { messageQuery, useIndexStatus } from '../../api/index-api'

/**
 * One message by its ordinal (1 = the number's oldest). From the index when it holds the whole
 * history; otherwise from the upstream: the history's total turns the ordinal into today's
 * record position, and that one record is fetched.
 */
export function useMessage(number: string, ordinal: number, linkTid: string) {
  const index = useIndexStatus()
  const facts = index.byNumber.get(number)
  // The index answers only when it holds the whole history; otherwise the upstream does.
  const indexed = index.available && !!facts && facts.upstreamTotal !== null && facts.indexed > 0 && facts.indexed >= facts.upstreamTotal
  const fromIndex = useQuery({ ...messageQuery(number, ordinal), enabled: indexed })
  const tid = linkTid || fromIndex.data?.message.tid || index.byNumber.get(number)?.tid || ''
  const envelope = useQuery({ ...historyQuery(number, tid, 1, 1), enabled: !indexed && !index.loading && tid !== '' })
  const upstreamTotal = envelope.data?.total ?? null
  const position = upstreamTotal !== null ? upstreamTotal - ordinal + 1 : null
  const record = useQuery({
    ...historyQuery(number, tid, position ?? 1, position ?? 1),
    enabled: !indexed && position !== null && position >= 1,
  })

  const m: Message | undefined = indexed ? fromIndex.data?.message : record.data?.messages[0]
  return {
    index,
    indexed,
    tid,
    m,
    upstreamTotal,
    total: indexed ? (fromIndex.data?.total ?? null) : upstreamTotal,
    error: indexed ? fromIndex.error : (envelope.error ?? record.error),
    pos: indexed ? (fromIndex.data?.message.position ?? null) : position,
    outOfRange: !indexed && position !== null && position < 1,
    retry: () => void (indexed ? fromIndex.refetch() : record.refetch()),
  }
}
