import type { NumberIndexStatus } from '../../api/index-api'

/** Whether the index holds the whole of this number's history (what the upstream reported last). */
export function wholeHistoryIndexed(facts: NumberIndexStatus | undefined): boolean {
  return (
    !!facts && facts.state !== 'syncing' && facts.state !== 'queued' && facts.upstreamTotal !== null && facts.indexed >= facts.upstreamTotal
  )
}
