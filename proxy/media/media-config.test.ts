import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from '../config.ts'

describe('media variables', () => {
  it('defaults to no extra hosts, 10 MB and 15 s', () => {
    expect(parseConfig({}).media).toEqual({ allowedHosts: [], maxBytes: 10 * 1024 * 1024, timeoutMs: 15_000 })
  })
  it('reads MEDIA_ALLOWED_HOSTS as names, addresses and name:port, lower-cased', () => {
    const c = parseConfig({
      MEDIA_ALLOWED_HOSTS: ' Media.LAN , 10.0.0.8:8080,[fd00::8] ,',
      MEDIA_MAX_BYTES: '2048',
      MEDIA_TIMEOUT_MS: '500',
    })
    expect(c.media).toEqual({ allowedHosts: ['media.lan', '10.0.0.8:8080', '[fd00::8]'], maxBytes: 2048, timeoutMs: 500 })
  })
  it.each([
    ['MEDIA_ALLOWED_HOSTS', 'http://media.lan', /MEDIA_ALLOWED_HOSTS: "http:\/\/media.lan" is not a host name/],
    ['MEDIA_ALLOWED_HOSTS', 'media.lan/path', /MEDIA_ALLOWED_HOSTS: "media.lan\/path"/],
    ['MEDIA_ALLOWED_HOSTS', 'user@media.lan', /MEDIA_ALLOWED_HOSTS: "user@media.lan"/],
    ['MEDIA_ALLOWED_HOSTS', 'fd00::8', /MEDIA_ALLOWED_HOSTS: "fd00::8"/],
    ['MEDIA_ALLOWED_HOSTS', 'media.lan:99999', /MEDIA_ALLOWED_HOSTS: "media.lan:99999"/],
    ['MEDIA_MAX_BYTES', '10MB', /MEDIA_MAX_BYTES must be a whole number/],
    ['MEDIA_MAX_BYTES', '10', /MEDIA_MAX_BYTES must be between/],
    ['MEDIA_TIMEOUT_MS', '0', /MEDIA_TIMEOUT_MS must be between/],
  ])('%s=%s fails naming the variable', (name, value, message) => {
    expect(() => parseConfig({ [name]: value })).toThrowError(ConfigError)
    expect(() => parseConfig({ [name]: value })).toThrowError(message)
  })
  it('names every bad entry at once', () => {
    let err: unknown
    try {
      parseConfig({ MEDIA_ALLOWED_HOSTS: 'ok.lan,bad/one,bad two' })
    } catch (e) {
      err = e
    }
    expect((err as ConfigError).problems).toHaveLength(2)
  })
})
