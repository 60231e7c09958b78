/**
 * The customers a read showed, as its access-log entry names them (the `parties` detail fills the
 * entry's party column, by which the log is filtered): at most MAX_PARTIES_LOGGED, with how many
 * more there were beside them.
 */
export const MAX_PARTIES_LOGGED = 200

export interface PartiesShown {
  parties: string[]
  partiesMore?: number
}

export function partiesShown(keys: Iterable<string | null | undefined>): PartiesShown {
  const distinct = new Set<string>()
  for (const k of keys) if (k) distinct.add(k)
  const all = [...distinct]
  const more = all.length - MAX_PARTIES_LOGGED
  return more > 0 ? { parties: all.slice(0, MAX_PARTIES_LOGGED), partiesMore: more } : { parties: all }
}

/** Collects the customers of rows as they stream out (an export), for its closing entry. */
export function partyCollector(): { add: (key: string | null | undefined) => void; shown: () => PartiesShown } {
  const first: string[] = []
  const seen = new Set<string>()
  // Past this many distinct customers only the count grows (memory stays bounded on any export).
  const COUNTED = 1_000_000
  return {
    add: (key) => {
      if (!key || seen.has(key) || seen.size >= COUNTED) return
      seen.add(key)
      if (first.length < MAX_PARTIES_LOGGED) first.push(key)
    },
    shown: () => (seen.size > first.length ? { parties: first, partiesMore: seen.size - first.length } : { parties: first }),
  }
}
