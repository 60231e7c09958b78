import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Standard Webhooks signing (standardwebhooks.com, "Signature scheme"): the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}`, HMAC-SHA256 with the secret's bytes (the base64
 * after `whsec_`), sent as `v1,<base64>`. Receivers verify with the same secret, and reject a
 * timestamp far from their clock (replay protection), so the timestamp is the attempt's own.
 */

const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64')

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** Whether any `v1,` signature in the header (space-separated, as the scheme allows several) matches. */
export function verify(secret: string, id: string, timestamp: number, body: string, header: string): boolean {
  const want = Buffer.from(sign(secret, id, timestamp, body).slice(3), 'base64')
  return header.split(' ').some((part) => {
    if (!part.startsWith('v1,')) return false
    const got = Buffer.from(part.slice(3), 'base64')
    return got.length === want.length && timingSafeEqual(got, want)
  })
}

/** A fresh secret for a new webhook channel (32 random bytes). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`
