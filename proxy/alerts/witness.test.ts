import { createPublicKey } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadSigningKey, readSignedHeads, signHead } from '../access/signed-heads.ts'
import { slackBody, subjectLine, textOf } from './render.ts'
import { headVerifies } from '../testing/alert-receivers.ts'
import { witnessNotice } from './witness.ts'

/**
 * A witness notice as email and Slack carry it: everything a recipient needs to check the head
 * offline, and the heads-file line the server's `verify-log --anchor` reads back.
 */

describe('a witness notice in words', () => {
  it('carries the head, the signed text, the key, and a heads-file line verify-log reads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-witness-text-'))
    try {
      const key = loadSigningKey(join(dir, 'log.key'))
      const signed = signHead(key, { seq: 42n, hash: 'c'.repeat(64) }, new Date('2026-06-01T09:00:00Z'))
      const publicKey = String(createPublicKey(key).export({ type: 'spki', format: 'pem' }))
      const notice = witnessNotice({ ...signed, publicKey }, new Date('2026-06-01T09:00:05Z'))
      expect(headVerifies(notice.head!)).toBe(true)
      expect(subjectLine(notice)).toBe('[Switchboard] Witness: Signed head of the access log')
      const text = textOf(notice)
      for (const part of ['Entry: 42', `Hash: ${'c'.repeat(64)}`, `Signature (Ed25519, base64): ${signed.sig}`, publicKey.trim()])
        expect(text).toContain(part)
      const line = text.split('\n').at(-1)!
      expect(readSignedHeads(line, key)).toEqual([signed])
      // A line someone changed is refused by the same reader: the check above can fail.
      expect(() => readSignedHeads(line.replace('"seq":"42"', '"seq":"41"'), key)).toThrow(/not a head signed with this server's key/)
      const slack = JSON.stringify(slackBody(notice))
      expect(slack).toContain(signed.sig)
      expect(slack).toContain('BEGIN PUBLIC KEY')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
