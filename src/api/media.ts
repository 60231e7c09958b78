/**
 * Where the browser loads a message's media: the server's /api/media, never the stranger's
 * host itself, so that host learns nothing of who reads the message and a link to a LAN
 * address cannot make the reader's browser request it. The browser names the message, not the
 * address: an indexed one by its number and ordinal, one of a history page by its number and
 * ids. The server looks the address up among the messages it knows and logs the view under
 * that message's number and customer. Null when the message cannot be named (no number, or a
 * record with neither id).
 */
export const mediaSrc = (m: {
  number: string | null | undefined
  ordinal?: number | null
  systemId: string | null
  messageId: string | null
}): string | null => {
  const number = m.number?.replace(/\D/g, '') ?? ''
  if (!/^\d{6,15}$/.test(number)) return null
  if (m.ordinal != null && Number.isInteger(m.ordinal) && m.ordinal > 0) return `/api/media?number=${number}&ordinal=${m.ordinal}`
  // As the server reads a record's ids: trimmed, and an empty one is none.
  const system = m.systemId?.trim() || null
  const message = m.messageId?.trim() || null
  if (system === null && message === null) return null
  if ([system, message].some((id) => id !== null && !ID.test(id))) return null
  const ids = [
    ...(system !== null ? [`system=${encodeURIComponent(system)}`] : []),
    ...(message !== null ? [`message=${encodeURIComponent(message)}`] : []),
  ]
  return `/api/media?number=${number}&${ids.join('&')}`
}

/** The ids the server accepts (proxy/media/handler.ts): printable ASCII without spaces, bounded. */
const ID = /^[\x21-\x7e]{1,128}$/
