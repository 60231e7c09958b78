/**
 * Where the browser loads a message's media: the server's /api/media, never the stranger's
 * host itself, so that host learns nothing of who reads the message and a link to a LAN
 * address cannot make the reader's browser request it. `safe` must already have passed
 * safeHttpUrl (only http and https reach here).
 */
export const mediaSrc = (safe: string): string => `/api/media?url=${encodeURIComponent(safe)}`
