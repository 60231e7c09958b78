import { deflateSync } from 'node:zlib'

/** Tiny media files the simulator serves itself, so MMS thumbnails work with no network. */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(buf: Buffer): number {
  let c = 0xffffffff
  for (const byte of buf) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(td))
  return Buffer.concat([len, td, crc])
}

/** A width×height RGB PNG with a diagonal two-colour pattern. */
export function makePng(width: number, height: number, a: [number, number, number], b: [number, number, number]): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height)
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1)
    raw[row] = 0
    for (let x = 0; x < width; x++) {
      const c = (x + y) % 40 < 20 ? a : b
      raw.set(c, row + 1 + x * 3)
    }
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8
  ihdr[9] = 2
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

export const MEDIA_FILES: Record<string, { type: string; body: Buffer }> = {
  'photo-1.png': { type: 'image/png', body: makePng(320, 240, [37, 99, 235], [219, 234, 254]) },
  'photo-2.png': { type: 'image/png', body: makePng(240, 320, [22, 163, 74], [220, 252, 231]) },
  'photo-3.png': { type: 'image/png', body: makePng(400, 300, [217, 119, 6], [254, 243, 199]) },
  'photo-4.png': { type: 'image/png', body: makePng(300, 300, [147, 51, 234], [243, 232, 255]) },
  'card.vcf': {
    type: 'text/vcard',
    body: Buffer.from('BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Demo Contact\r\nTEL:+14155550123\r\nEND:VCARD\r\n'),
  },
  'clip.mp4': { type: 'video/mp4', body: Buffer.alloc(64) },
  'invoice.pdf': { type: 'application/pdf', body: Buffer.from('%PDF-1.1\n%%EOF\n') },
}
