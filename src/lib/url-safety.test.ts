import { describe, expect, it } from 'vitest'
import { isPrivateHost, mediaKind, safeHttpUrl } from './url-safety'

describe('safeHttpUrl', () => {
  it('accepts absolute http and https URLs', () => {
    expect(safeHttpUrl('https://media.example.com/a.png')).toBe('https://media.example.com/a.png')
    expect(safeHttpUrl('HTTP://media.example.com/a.png')).toBe('http://media.example.com/a.png')
  })
  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    '\u0001javascript:alert(1)',
    ' javascript:alert(1)',
    '\tjavascript:alert(1)',
    'java\nscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    '//evil.example/x.png',
    '/relative/path.png',
    'https://[not-a-host/x.png',
    'https://',
    'http:/x',
    'ftp://example.com/a.png',
    '',
  ])('refuses %j', (raw) => {
    expect(safeHttpUrl(raw)).toBeNull()
  })
  it('refuses non-strings', () => {
    expect(safeHttpUrl(null)).toBeNull()
    expect(safeHttpUrl(undefined)).toBeNull()
  })
})

describe('mediaKind', () => {
  it('reads the extension', () => {
    expect(mediaKind('https://x.example/a/photo.JPG')).toBe('image')
    expect(mediaKind('https://x.example/clip.mp4')).toBe('video')
    expect(mediaKind('https://x.example/card.vcf')).toBe('vcard')
    expect(mediaKind('https://x.example/doc.pdf')).toBe('pdf')
    expect(mediaKind('https://x.example/blob')).toBe('file')
  })
})

describe('isPrivateHost', () => {
  it.each([
    'localhost',
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.1',
    '192.168.1.20',
    '169.254.169.254',
    'printer.local',
    '[::1]',
    'fe80::1',
    'fd00::1',
  ])('%s is private', (h) => {
    expect(isPrivateHost(h)).toBe(true)
  })
  it.each(['example.com', '8.8.8.8', '172.32.0.1', '11.0.0.1', 'localhost.example.com'])('%s is public', (h) => {
    expect(isPrivateHost(h)).toBe(false)
  })
})
