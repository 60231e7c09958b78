import { isIP } from 'node:net'

/**
 * Which resolved addresses an outbound call to a URL someone else wrote may connect to: a
 * message's media link (media/), a callback URL the watch probes, an alert's webhook. Fetched
 * blindly, such a URL would let its author reach the server's own ports, the LAN behind it or a
 * cloud metadata service (OWASP SSRF prevention cheat sheet). Only public unicast addresses pass; the ranges are IANA's special-purpose
 * registries (RFC 6890 and its updates) for IPv4 and IPv6.
 */

type Range = readonly [prefix: string, bits: number, why: string]

const V4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address (RFC 1918)'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address (RFC 6598)'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address (RFC 1918)'],
  ['192.0.0.0', 24, 'an IETF protocol address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a 6to4 relay address'],
  ['192.168.0.0', 16, 'a private address (RFC 1918)'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved or broadcast address'],
]

const V6_RANGES: readonly Range[] = [
  // ::/96 holds the unspecified address, loopback (::1) and the deprecated IPv4-compatible form.
  ['::', 96, 'an unspecified, loopback or IPv4-compatible address'],
  ['64:ff9b:1::', 48, 'a local-use NAT64 address'],
  ['100::', 64, 'a discard-only address'],
  ['2001::', 32, 'a Teredo address'],
  ['2001:10::', 28, 'an ORCHID address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['3fff::', 20, 'a documentation address'],
  ['5f00::', 16, 'a segment-routing address'],
  ['fc00::', 7, 'a unique-local (private) address'],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['ff00::', 8, 'a multicast address'],
]

function v4Number(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0)
}

/** An IPv6 address as 8 sixteen-bit words (an embedded dotted quad becomes the last two). */
function v6Words(address: string): number[] {
  let text = address.replace(/%.*$/, '').toLowerCase()
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1]
  if (quad) {
    const n = v4Number(quad)
    text = `${text.slice(0, -quad.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const middle = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0')
  return [...left, ...middle, ...right].map((w) => parseInt(w, 16))
}

function inV4(n: number, [prefix, bits]: Range): boolean {
  const shift = 32 - bits
  return Math.floor(n / 2 ** shift) === Math.floor(v4Number(prefix) / 2 ** shift)
}

function inV6(words: number[], [prefix, bits]: Range): boolean {
  const p = v6Words(prefix)
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const take = Math.min(16, bits)
    const mask = (0xffff << (16 - take)) & 0xffff
    if (((words[i] ?? 0) & mask) !== ((p[i] ?? 0) & mask)) return false
  }
  return true
}

const wordsToV4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`

/**
 * The IPv4 address an IPv6 one carries, for the forms that route to it: IPv4-mapped
 * (::ffff:0:0/96), NAT64 (64:ff9b::/96, RFC 6052) and 6to4 (2002::/16, RFC 3056). Without this,
 * ::ffff:127.0.0.1 or 64:ff9b::a00:1 would reach loopback or the LAN under an "IPv6" name.
 */
function embeddedV4(w: number[]): string | null {
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0)
  if (zeros(0, 5) && w[5] === 0xffff) return wordsToV4(w[6] ?? 0, w[7] ?? 0)
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return wordsToV4(w[6] ?? 0, w[7] ?? 0)
  if (w[0] === 0x2002) return wordsToV4(w[1] ?? 0, w[2] ?? 0)
  return null
}

/** Why this resolved address may not be fetched (words for an error message), or null when it is public. */
export function addressProblem(address: string): string | null {
  const family = isIP(address.replace(/%.*$/, ''))
  if (family === 4) {
    const n = v4Number(address)
    return V4_RANGES.find((r) => inV4(n, r))?.[2] ?? null
  }
  if (family === 6) {
    const words = v6Words(address)
    const v4 = embeddedV4(words)
    if (v4) {
      const why = addressProblem(v4)
      return why ? `${why} inside an IPv6 address` : null
    }
    return V6_RANGES.find((r) => inV6(words, r))?.[2] ?? null
  }
  return 'not an IP address'
}
