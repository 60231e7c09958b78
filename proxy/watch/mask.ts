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
  if (u.password) u.password = '•••'
  if (u.search) {
    const masked = [...u.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=•••`).join('&')
    u.search = masked ? `?${masked}` : ''
  }
  return u.toString()
}

export const keyOf = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 16)
