/**
 * URLs from message data come from strangers. Only absolute http(s) URLs may reach `src` or
 * `href`; everything else (javascript:, data:, vbscript:, protocol-relative, malformed,
 * control-character tricks) is shown as inert text. OWASP XSS prevention, rule 5.
 */
export function safeHttpUrl(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 4096) return null
  // Browsers strip leading C0 controls and spaces before parsing a scheme; refuse rather than guess.
  if (/[\u0000-\u0020\u007f-\u009f]/.test(raw)) return null
  if (!/^https?:\/\//i.test(raw)) return null
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return null
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) return null
  return url.href
}

export type MediaKind = 'image' | 'video' | 'vcard' | 'pdf' | 'audio' | 'file'

/** The extension is the only hint of the media type the API gives (field notes). */
export function mediaKind(url: string): MediaKind {
  let path = url
  try {
    path = new URL(url).pathname
  } catch {
    /* keep raw */
  }
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? ''
  if (['png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'avif'].includes(ext)) return 'image'
  if (['mp4', 'mov', '3gp', '3gpp', 'webm', 'm4v'].includes(ext)) return 'video'
  if (['mp3', 'm4a', 'amr', 'ogg', 'wav'].includes(ext)) return 'audio'
  if (ext === 'vcf' || ext === 'vcard') return 'vcard'
  if (ext === 'pdf') return 'pdf'
  return 'file'
}

export function fileNameOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || url
  } catch {
    return url
  }
}

/** Loopback, RFC 1918, link-local, unique-local, `localhost` and mDNS `.local` names. */
export function isPrivateHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h === '0.0.0.0') return true
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h)
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])]
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    )
  }
  if (h.includes(':')) return h === '::1' || h === '::' || /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || h.startsWith('::ffff:')
  return false
}
