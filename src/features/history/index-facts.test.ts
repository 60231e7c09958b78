import { expect, test } from 'vitest'
import type { NumberIndexStatus } from '../../api/index-api'
import { wholeHistoryIndexed } from './index-facts'

const facts = (state: string, indexed = 36, upstreamTotal: number | null = 36) =>
  ({
    number: '18552009444',
    tid: 'T',
    state,
    indexed,
    upstreamTotal,
    removed: false,
    otherTids: [],
    forgottenAt: null,
  }) as unknown as NumberIndexStatus

test('the whole history is indexed only while no sync is under way or stopped short', () => {
  expect(wholeHistoryIndexed(facts('idle'))).toBe(true)
  // A catch-up that stopped on an error or a refusal: the newest messages may be missing (an export went ahead without waiting).
  expect(wholeHistoryIndexed(facts('error'))).toBe(false)
  expect(wholeHistoryIndexed(facts('paused'))).toBe(false)
  expect(wholeHistoryIndexed(facts('syncing'))).toBe(false)
  expect(wholeHistoryIndexed(facts('idle', 35))).toBe(false)
  expect(wholeHistoryIndexed(undefined)).toBe(false)
})
