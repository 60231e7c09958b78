import { describe, expect, it } from 'vitest'
import { addressProblem } from './outbound-address.ts'

describe('addressProblem', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.1.2.3', /RFC 1918/],
    ['172.16.0.1', /RFC 1918/],
    ['172.31.255.255', /RFC 1918/],
    ['192.168.1.20', /RFC 1918/],
    ['169.254.169.254', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['0.0.0.0', /unspecified/],
    ['224.0.0.251', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['192.0.2.7', /documentation/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['fd00::8', /unique-local/],
    ['fc12:3456::1', /unique-local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /loopback address inside an IPv6/],
    ['::ffff:7f00:1', /loopback address inside an IPv6/],
    ['::ffff:a00:1', /RFC 1918\) inside an IPv6/],
    ['::ffff:169.254.169.254', /link-local address inside an IPv6/],
    ['64:ff9b::a00:1', /RFC 1918\) inside an IPv6/],
    ['2002:c0a8:0101::1', /RFC 1918\) inside an IPv6/],
    ['2001:db8::1', /documentation/],
    ['not-an-ip', /not an IP/],
  ])('refuses %s', (address, why) => {
    expect(addressProblem(address)).toMatch(why)
  })

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('passes the public address %s', (address) => {
    expect(addressProblem(address)).toBeNull()
  })
})
