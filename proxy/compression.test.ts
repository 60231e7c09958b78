import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPRESS_MIN_BYTES, STREAM_COMPRESS_BYTES, pickEncoding } from './http.ts'
import { sendRaw, simStack } from './testing/helpers.ts'

describe('pickEncoding', () => {
  it.each([
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['BR;Q=0.001', 'br'],
    ['gzip;q=0, br;q=0', null],
    ['identity', null],
    ['deflate', null],
    ['', null],
    [undefined, null],
    ['br;q=banana', 'br'],
  ] as const)('%s → %s', (accept, coding) => {
    expect(pickEncoding(accept)).toBe(coding)
  })
})

// The real server on the real simulator: a page of history is big enough to compress.
let stack: Awaited<ReturnType<typeof simStack>>
beforeAll(async () => {
  stack = await simStack()
})
afterAll(async () => {
  await stack.close()
})

const history = (acceptEncoding: string | null, end = 50) => {
  const body = new URLSearchParams({ number: '18323232323', tid: 'PUHMGWS98301', history_start: '1', history_end: String(end) }).toString()
  return sendRaw(
    stack.port,
    `POST /api/smshistory HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n` +
      `${acceptEncoding === null ? '' : `Accept-Encoding: ${acceptEncoding}\r\n`}Connection: close\r\n\r\n${body}`,
  )
}
/** The body of a chunked answer (sendRaw returns the bytes as they came). */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const eol = raw.indexOf('\r\n', at)
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16)
    if (!size) return Buffer.concat(parts)
    parts.push(raw.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
}
const header = (head: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]

describe('JSON answers are compressed when the client takes it', () => {
  it('brotli, gzip or none, the same answer each way', async () => {
    const plain = await history(null)
    expect(plain.status).toBe(200)
    expect(header(plain.head, 'content-encoding')).toBeUndefined()
    expect(plain.body.length).toBeGreaterThan(COMPRESS_MIN_BYTES)
    const messages = (JSON.parse(plain.body.toString('utf8')) as { messages: unknown[] }).messages
    expect(messages).toHaveLength(50)

    const br = await history('gzip, deflate, br')
    expect(header(br.head, 'content-encoding')).toBe('br')
    expect(header(br.head, 'vary')).toMatch(/accept-encoding/i)
    expect(Number(header(br.head, 'content-length'))).toBe(br.body.length)
    expect(br.body.length).toBeLessThan(plain.body.length / 3)
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true)

    const gz = await history('gzip')
    expect(header(gz.head, 'content-encoding')).toBe('gzip')
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true)

    const refused = await history('br;q=0, gzip;q=0')
    expect(header(refused.head, 'content-encoding')).toBeUndefined()
    expect(refused.body.equals(plain.body)).toBe(true)
  })

  it('compresses a small page and a 50-message one whole, each with its length', async () => {
    for (const end of [5, 50]) {
      const plain = await history(null, end)
      expect(plain.body.length).toBeGreaterThan(COMPRESS_MIN_BYTES)
      expect(plain.body.length).toBeLessThan(STREAM_COMPRESS_BYTES)
      for (const [accept, decode] of [
        ['br', brotliDecompressSync],
        ['gzip', gunzipSync],
      ] as const) {
        const r = await history(accept, end)
        expect(header(r.head, 'content-encoding')).toBe(accept)
        expect(Number(header(r.head, 'content-length'))).toBe(r.body.length)
        expect(decode(r.body).equals(plain.body)).toBe(true)
      }
    }
  })

  it('streams a big answer through the compressor, whole', async () => {
    const plain = await history(null, 1000)
    expect(plain.body.length).toBeGreaterThan(STREAM_COMPRESS_BYTES)
    expect((JSON.parse(plain.body.toString('utf8')) as { messages: unknown[] }).messages).toHaveLength(1000)
    for (const [accept, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const r = await history(accept, 1000)
      expect(header(r.head, 'content-encoding')).toBe(accept)
      expect(header(r.head, 'transfer-encoding')).toBe('chunked')
      expect(decode(dechunk(r.body)).equals(plain.body)).toBe(true)
    }
  })

  it('leaves a small answer as it is, and an error too when small', async () => {
    const small = await history('br', 1)
    expect(small.status).toBe(200)
    expect(small.body.length).toBeLessThan(COMPRESS_MIN_BYTES)
    expect(header(small.head, 'content-encoding')).toBeUndefined()
    const bad = await sendRaw(
      stack.port,
      `GET /api/index/nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: br\r\nConnection: close\r\n\r\n`,
    )
    expect(bad.status).toBeGreaterThanOrEqual(400)
    expect(header(bad.head, 'content-encoding')).toBeUndefined()
    expect(JSON.parse(bad.body.toString('utf8'))).toHaveProperty('error')
  })
})
