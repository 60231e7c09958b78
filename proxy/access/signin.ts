import type { AccessAnswer } from '../../contract/access-api.ts'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Db } from '../db/types.ts'
import { z } from 'zod'
import { notRecorded, ProxyError } from '../errors.ts'
import type { AccessGate } from '../http-types.ts'
import { sendError, sendJson } from '../http.ts'
import type { AccessConfig } from './config.ts'
import { secureFor } from './route-helpers.ts'
import { deviceCookie, knownDevice, rememberDevice } from './devices.ts'
import { addressKey, admitAttempt, createCheckGate, recordSuccess, type LimitRules } from './limits.ts'
import { PASSWORD_MAX, verifyPassword } from './passwords.ts'
import { createSession, deleteSession, sessionCookie, sessionSetCookie, type SessionTimes } from './sessions.ts'
import { checkName, credentialsOf, normaliseName } from './users.ts'

/** What POST /api/auth/signin needs from createAccess. */
export interface SignInDeps {
  cfg: AccessConfig
  db: Db
  now: () => number
  times: SessionTimes
  limits: LimitRules
  addressOf: (req: IncomingMessage) => string
  record: (actor: string, via: string, address: string, action: string, details: Record<string, unknown>) => void
  /** A stored entry (a sign-in that succeeded): rejects when it cannot be stored. */
  audit: AccessGate['audit']
  log: (line: string) => void
  dummyCheck: (password: string) => Promise<false>
  /** Called once per password actually checked (scrypt run); tests count them. */
  onPasswordCheck?: () => void
}

/** A required, bounded string field of the sign-in form. */
const credential = (field: string, max: number) =>
  z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? `${field} is required.` : `${field} must be text.`) })
    .min(1, `${field} is required.`)
    .max(max, `${field} must be at most ${max} characters.`)

/** The sign-in form; other fields are ignored. */
export const SIGNIN_BODY = z.object({ name: credential('name', 320), password: credential('password', PASSWORD_MAX * 4) })
export type SignInBody = z.output<typeof SIGNIN_BODY>

function tooMany(res: ServerResponse, field: string, message: string, retryAfterMs: number): void {
  sendError(res, new ProxyError(429, { kind: 'unauthorized', field, message, retryAfterMs }), {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
  })
}

export function createSignIn(d: SignInDeps): (req: IncomingMessage, res: ServerResponse, body: SignInBody) => Promise<void> {
  const { cfg, db } = d
  const gate = createCheckGate(d.limits.checks)
  /** Turns (running or waiting) each client address holds now. */
  const held = new Map<string, number>()
  /** Addresses with a failed sign-in lately (address key → when), oldest first; bounded. */
  const failedLately = new Map<string, number>()
  const FAILING_FOR_MS = 15 * 60_000
  const noteOutcome = (from: string, failed: boolean) => {
    failedLately.delete(from)
    if (!failed) return
    failedLately.set(from, d.now())
    if (failedLately.size > 10_000) failedLately.delete(failedLately.keys().next().value!)
  }
  const failing = (from: string) => d.now() - (failedLately.get(from) ?? -Infinity) < FAILING_FOR_MS

  /** Counts the attempt, then (if admitted) checks the password: the part that holds a turn. */
  async function attempt(rawName: string, key: string, password: string, address: string) {
    const limited = await admitAttempt(db, key, address, d.now(), d.limits)
    if (limited) return limited
    let name: string | null
    try {
      name = checkName(rawName)
    } catch {
      name = null
    }
    const user = name ? await credentialsOf(db, name) : null
    d.onPasswordCheck?.()
    // Unknown names, disabled users: the same scrypt work and the same answer as a wrong password.
    const ok = user && !user.disabled ? await verifyPassword(password, user.passwordHash) : await d.dummyCheck(password)
    return { ok, user, name }
  }

  return async function signIn(req, res, body) {
    const { name: rawName, password } = body
    const address = d.addressOf(req)
    // A NUL is no character of a name, and no text the database stores: the attempt is counted
    // and logged under the name without it (and fails, as checkName refuses the raw name).
    const key = normaliseName(rawName).replaceAll('\0', '').slice(0, 100)
    // A turn first (memory only): a flood is turned away before any database or hashing work,
    // and one address holds no more than its share of the turns.
    const from = addressKey(address)
    const mine = held.get(from) ?? 0
    if (mine >= d.limits.checks.perAddress)
      return tooMany(res, 'password', 'Another sign-in from your address is being checked; try again in a second.', 1000)
    held.set(from, mine + 1)
    let outcome: Awaited<ReturnType<typeof attempt>>
    try {
      // A browser that signed in as this name before waits ahead of strangers (devices.ts).
      const device = deviceCookie(req)
      const trusted = device !== null && (await knownDevice(db, device, key, d.now()).catch(() => false))
      const entering = gate.enter({ from, failing: failing(from), trusted })
      const leave = entering ? await entering : null
      if (!leave) return tooMany(res, 'password', 'Too many sign-ins are being checked at this moment; try again in a second.', 1000)
      try {
        outcome = await attempt(rawName, key, password, address)
      } finally {
        leave()
      }
    } finally {
      const left = (held.get(from) ?? 1) - 1
      if (left > 0) held.set(from, left)
      else held.delete(from)
    }
    noteOutcome(from, 'retryAfterMs' in outcome || !outcome.ok || !outcome.user)
    if ('retryAfterMs' in outcome) return tooMany(res, outcome.scope === 'pair' ? 'name' : 'address', outcome.message, outcome.retryAfterMs)
    const { ok, user, name } = outcome
    if (!ok || !user) {
      d.record(name ?? '(invalid name)', 'password', address, 'signin.fail', { name: visible(key.slice(0, 64)) })
      return sendError(
        res,
        new ProxyError(401, {
          kind: 'unauthorized',
          field: 'password',
          message: 'That name and password do not match a user who may sign in.',
        }),
      )
    }
    await recordSuccess(db, key, address)
    // The entry before the session: a sign-in the access log cannot record gives no session.
    try {
      await d.audit({ name: user.name, role: user.role, via: 'password' }, address, 'signin.ok', {})
    } catch (err) {
      d.log(`access log: could not record signin.ok by ${user.name}: ${err instanceof Error ? err.message : String(err)}`)
      return sendError(res, notRecorded(err))
    }
    // Session fixation (OWASP): whatever id the browser held before is ended, and a new one issued.
    const before = sessionCookie(req)
    if (before) await deleteSession(db, before)
    const session = await createSession(db, user.name, address, d.now(), d.times)
    const device = await rememberDevice(db, user.name, d.now(), secureFor(cfg, req).secure)
    sendJson(res, 200, { mode: cfg.mode, user: { name: user.name, role: user.role } } satisfies AccessAnswer<'me'>, {
      'set-cookie': [sessionSetCookie(session.id, secureFor(cfg, req)), device],
    })
  }
}

/**
 * A name as typed by anyone, made visible for the access log: control, line-breaking, invisible
 * and bidirectional-override characters written as \u{…} (a right-to-left override stored as is
 * turned the log page's line around; a line break in a name could pass for a second entry).
 */
export function visible(name: string): string {
  return name.replace(
    /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  )
}
