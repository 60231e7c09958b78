/**
 * "Go to date" without the index: history records are numbered from the newest (position 1)
 * and their dates only go back in time as the position grows, so the first record dated before
 * the end of a day is found by bisection over positions with one-record requests: about
 * log2(total) requests, 20 for a million records.
 *
 * `probe(p)` answers the date (ms) of record p, or null when it has none (a missing record is
 * treated as older, so the search still ends).
 */
export async function firstPositionBefore(
  total: number,
  limitMs: number,
  probe: (position: number) => Promise<number | null>,
): Promise<{ position: number | null; probes: number }> {
  let lo = 1
  let hi = total
  let found: number | null = null
  let probes = 0
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2)
    const date = await probe(mid)
    probes++
    if (date === null || date < limitMs) {
      found = mid
      hi = mid - 1
    } else lo = mid + 1
  }
  return { position: found, probes }
}
