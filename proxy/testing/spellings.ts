/** Spellings of the route table's paths, for the tests that send them. */

/** A concrete path for a route: a `:name` segment becomes a user that does not exist. */
export const concrete = (path: string) => path.replace(/:[a-z]+$/, 'nobody')

/**
 * Spellings of a route's path that a lenient router or a URL parser would take as the same
 * route. They alter the last fixed segment (a `:name` value is data, not a spelling).
 */
export function spellings(path: string): string[] {
  const parts = path.split('/')
  const param = parts[parts.length - 1]!.startsWith(':') ? `/${concrete(parts.pop()!)}` : ''
  const last = parts.pop()!
  const head = parts.join('/')
  const at = /[a-z]/.exec(last)!.index
  const encoded = `${head}/${last.slice(0, at)}%${last.charCodeAt(at).toString(16)}${last.slice(at + 1)}`
  return [
    `${head}/./${last}`,
    `${head}//${last}`,
    `${head}/%2e/${last}`,
    `${head}/x/%2E%2E/${last}`,
    `${head}/x/../${last}`,
    `${head}/${last}/`,
    `${head}/${last}`.toUpperCase(),
    `${head}/${last.slice(0, at)}${last[at]!.toUpperCase()}${last.slice(at + 1)}`,
    `${head}/${last};x=1`,
    encoded,
    encoded.replace(/%([0-9a-f]{2})/, (_m, h: string) => `%${h.toUpperCase()}`),
    ...encodedSegments(`${head}/${last}`),
  ].map((p) => p + param)
}

/**
 * Each segment of a path with one letter percent-encoded, `/api` included (`/%61pi/…`), in lower
 * and upper hex: a router decodes them to the same path, so each must be refused wherever it is.
 */
export function encodedSegments(path: string): string[] {
  const parts = path.split('/')
  const out: string[] = []
  parts.forEach((segment, i) => {
    const at = /[a-z]/i.exec(segment)?.index
    if (at === undefined || segment.startsWith(':')) return
    for (const hex of [segment.charCodeAt(at).toString(16), segment.charCodeAt(at).toString(16).toUpperCase()]) {
      const spelled = `${segment.slice(0, at)}%${hex}${segment.slice(at + 1)}`
      out.push(parts.map((p, j) => (j === i ? spelled : p)).join('/'))
    }
  })
  return out
}
