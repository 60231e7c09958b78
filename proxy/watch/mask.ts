import { createHash } from 'node:crypto'

/**
 * Callback URLs often carry a secret in their query (`?token=…`) or user-info: what the pages
 * show has every query value and any password masked. An endpoint is named by `keyOf` (a hash),
 * so the unmasked URL never has to travel back in a request.
 */
export function maskUrl(raw: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    // Not a URL: shown as listed (it cannot be called, so it carries nothing usable), but bounded.
    return raw.length > 300 ? `${raw.slice(0, 300)}…` : raw
  }
  // Built by hand: URL's setters would percent-encode the mask.
  const user = u.username ? `${u.username}${u.password ? ':•••' : ''}@` : ''
  const keys = [...new Set(u.searchParams.keys())]
  const query = u.search ? `?${keys.map((k) => `${encodeURIComponent(k)}=•••`).join('&')}` : ''
  return `${u.protocol}//${user}${u.host}${u.pathname}${query}${u.hash ? '#•••' : ''}`
}

export const keyOf = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 16)
