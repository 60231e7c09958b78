import type { NumberIndexStatus } from '../../api/index-api'

/** Whether the index holds the whole of this number's history (what the upstream reported last). */
export function wholeHistoryIndexed(facts: NumberIndexStatus | undefined): boolean {
  return (
    !!facts && facts.state !== 'syncing' && facts.state !== 'queued' && facts.upstreamTotal !== null && facts.indexed >= facts.upstreamTotal
  )
}

/** When an admin forgot this number's indexed messages, if the index has left it alone since; else null. */
export function forgottenAt(facts: NumberIndexStatus | undefined): string | null {
  return facts && facts.state === 'never' && facts.forgottenAt !== null ? facts.forgottenAt : null
}
