import { formatCount } from '../../lib/count'

/**
 * A search's count as the server gave it: exact, or (capped) a lower bound, when the server
 * stopped counting a broad filter it cannot count from its roll-ups. Never written as exact
 * when it is not.
 */
export function matchCount(total: number, capped: boolean): string {
  return capped ? `more than ${formatCount(total)}` : formatCount(total)
}

/** `1 match`, `2,345 matches`, `More than 100,000 matches`. */
export function matchesLine(total: number, capped: boolean): string {
  if (capped) return `More than ${formatCount(total)} matches`
  return `${formatCount(total)} ${total === 1 ? 'match' : 'matches'}`
}
