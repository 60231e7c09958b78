/**
 * Where the browser loads a message's media: the server's /api/media, never the stranger's
 * host itself, so that host learns nothing of who reads the message and a link to a LAN
 * address cannot make the reader's browser request it. `safe` must already have passed
 * safeHttpUrl (only http and https reach here).
 */
export const mediaSrc = (safe: string, shownWith: { number?: string | null; party?: string | null } = {}): string => {
  // The number and customer of the message it is shown with, for the access log's number and
  // party columns ("who read this customer"): the link alone names neither.
  const number = shownWith.number?.replace(/\D/g, '') ?? ''
  const party = shownWith.party?.replace(/\D/g, '') ?? ''
  return `/api/media?url=${encodeURIComponent(safe)}${/^\d{6,15}$/.test(number) ? `&number=${number}` : ''}${/^\d{1,15}$/.test(party) ? `&party=${party}` : ''}`
}
