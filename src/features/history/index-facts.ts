import type { NumberIndexStatus } from '../../api/index-api'

/**
 * Whether the index holds the whole of this number's history (what the upstream reported last).
 * Not after a sync that stopped on an error or a refusal: its newest messages are not known to be
 * there (the server judges completeness the same way; an export went ahead without waiting).
 */
export function wholeHistoryIndexed(facts: NumberIndexStatus | undefined): boolean {
  return (
    !!facts &&
    !['syncing', 'queued', 'error', 'paused'].includes(facts.state) &&
    facts.upstreamTotal !== null &&
    facts.indexed >= facts.upstreamTotal
  )
}

/** When an admin forgot this number's indexed messages, if the index has left it alone since; else null. */
export function forgottenAt(facts: NumberIndexStatus | undefined): string | null {
  return facts && facts.state === 'never' && facts.forgottenAt !== null ? facts.forgottenAt : null
}
