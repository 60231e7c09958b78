import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'

/**
 * Signed heads of the access log's chain, kept outside the database and outside DATA_DIR, after
 * RFC 6962's signed tree heads: each says "entry N had hash H at time T", signed with an Ed25519
 * key held in LOG_SIGNING_KEY_FILE. Someone who can edit the database can re-hash a chain so it
 * verifies by itself, and can rewrite the head anchors a server writes beside its data, but cannot
 * sign a head without the key: a saved head shows a cut tail, a rewritten stretch, or a purge of
 * entries younger than the retention period.
 */

export interface SignedHead {
  seq: string
  hash: string
  /** ISO time it was signed. */
  at: string
  /** Base64 Ed25519 signature over `signedText`. */
  sig: string
}

const signedText = (h: Pick<SignedHead, 'seq' | 'hash' | 'at'>) => `switchboard access-log head\n${h.seq}\n${h.hash}\n${h.at}\n`

/** The key in `file` (PKCS#8 PEM), made (owner-only) when the file does not exist yet. */
export function loadSigningKey(file: string): KeyObject {
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync('ed25519')
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' })
  }
  const key = createPrivateKey(readFileSync(file))
  if (key.asymmetricKeyType !== 'ed25519')
    throw new Error(`${file} holds a ${key.asymmetricKeyType ?? 'unknown'} key; LOG_SIGNING_KEY_FILE needs an Ed25519 key.`)
  return key
}

/** Where the signed heads are appended: beside the key, one JSON line each. */
export const headsFileOf = (keyFile: string) => `${keyFile}.heads`

/** A problem with keeping the key inside the data directory (where a database edit could reach it), or null. */
export function keyPlacementProblem(keyFile: string, dataDir: string | null): string | null {
  if (!isAbsolute(keyFile)) return 'LOG_SIGNING_KEY_FILE must be an absolute path.'
  if (dataDir === null) return null
  const rel = relative(resolve(dataDir), resolve(keyFile))
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
    ? 'LOG_SIGNING_KEY_FILE must be outside DATA_DIR: a key beside the data it vouches for proves nothing.'
    : null
}

export function signHead(key: KeyObject, head: { seq: bigint; hash: string }, at: Date): SignedHead {
  const h = { seq: String(head.seq), hash: head.hash, at: at.toISOString() }
  return { ...h, sig: sign(null, Buffer.from(signedText(h)), key).toString('base64') }
}

export function appendSignedHead(file: string, head: SignedHead): void {
  appendFileSync(file, `${JSON.stringify(head)}\n`, { mode: 0o600 })
}

/** Heads as lines of JSON, shapes checked but not signatures (the command line has checked those, with the key). */
export function parseHeadLines(text: string): SignedHead[] {
  const heads: SignedHead[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    const h = JSON.parse(line) as Partial<SignedHead>
    if (typeof h.seq !== 'string' || !/^\d{1,18}$/.test(h.seq) || typeof h.hash !== 'string' || typeof h.at !== 'string')
      throw new Error('heads: not a signed head.')
    heads.push({ seq: h.seq, hash: h.hash, at: h.at, sig: String(h.sig ?? '') })
  }
  return heads.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
}

/**
 * The heads in `text` (a heads file, or one saved line) whose signature `key` verifies, oldest
 * first; throws naming the first line that is not a head this key signed.
 */
export function readSignedHeads(text: string, key: KeyObject): SignedHead[] {
  const pub = key.type === 'private' ? createPublicKey(key) : key
  const heads: SignedHead[] = []
  text
    .split('\n')
    .map((l) => l.trim())
    .forEach((line, i) => {
      if (!line) return
      let h: Partial<SignedHead>
      try {
        h = JSON.parse(line) as Partial<SignedHead>
      } catch {
        throw new Error(`Line ${i + 1} is not a signed head (JSON).`)
      }
      const ok =
        typeof h.seq === 'string' &&
        /^\d{1,18}$/.test(h.seq) &&
        typeof h.hash === 'string' &&
        /^[0-9a-f]{64}$/.test(h.hash) &&
        typeof h.at === 'string' &&
        Number.isFinite(Date.parse(h.at)) &&
        typeof h.sig === 'string' &&
        verify(null, Buffer.from(signedText({ seq: h.seq, hash: h.hash, at: h.at })), pub, Buffer.from(h.sig, 'base64'))
      if (!ok) throw new Error(`Line ${i + 1} is not a head signed with this server's key: it was changed or made elsewhere.`)
      heads.push({ seq: h.seq!, hash: h.hash!, at: h.at!, sig: h.sig! })
    })
  return heads.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
}
