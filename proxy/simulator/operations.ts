import type { IncomingMessage, ServerResponse } from 'node:http'
import { arrivedBy, hostileMessages, messageAt, twinOf, type Account, type MessageRecord, type NumberProfile } from './dataset.ts'
import { answerFault, delay, send, takeFault, type Fault } from './faults.ts'
import { authRefusal, historyIn, refusal, type Dialect } from './dialect.ts'
import { changesListing, extraTid, REMOVAL_WORDINGS, reorderDelay, TWIN_SIZE, type Quirks } from './quirks.ts'
import { apiDate } from './rng.ts'
import { scenarioRefuses, scenarioWebhook, type Scenario } from './scenario.ts'

/**
 * The three operations as the interface document and the field notes describe them, quirks
 * included: credentials checked, 1-based inclusive history positions, newest first.
 */

export interface RecordedRequest {
  method: string
  path: string
  contentType: string
  /** The fields as received, except sys_id and auth_token, whose values are never kept. */
  fields: Record<string, string[]>
  /** Whether the sys_id/auth_token pair named one of the simulator's accounts. */
  authenticated: boolean
  headers: Record<string, string | string[] | undefined>
}

export interface SimState {
  faults: Fault[]
  /** Messages added per number (tests shift history positions this way). */
  added: Map<string, number>
  /** The last MAX_REQUESTS requests, credentials redacted. */
  requests: RecordedRequest[]
  calls: number
  /** What real accounts do beyond the dataset (quirks.ts); all off by default. */
  quirks: Quirks
  /** How this upstream words and shapes its answers (dialect.ts); fixed when the simulator is made. */
  readonly dialect: Dialect
  /** The clock new messages arrive by (arrivedBy); null keeps every history as the dataset ends it. */
  readonly now: (() => number) | null
  /** A demo that breaks on a schedule (scenario.ts): opt-in, for the demo account only. */
  readonly scenario?: Scenario | null
}

export const MAX_REQUESTS = 500
const CREDENTIAL_FIELDS = new Set(['sys_id', 'auth_token'])

export class TooLarge extends Error {}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let size = 0
    let done = false
    const chunks: Buffer[] = []
    const onData = (c: Buffer) => {
      size += c.length
      if (size > limit) {
        done = true
        req.off('data', onData)
        req.resume()
        reject(new TooLarge())
        return
      }
      chunks.push(c)
    }
    req.on('data', onData)
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks))
    })
    req.on('error', reject)
    req.on('close', () => reject(new Error('client left')))
  })
}

/**
 * The provider's own PHP sample sends multipart; the documented form is urlencoded. Accept
 * both, multipart parsed by the platform's own parser (Request.formData), not by hand.
 */
export async function parseFields(body: Buffer, contentType: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {}
  if (contentType.toLowerCase().startsWith('multipart/form-data')) {
    let form: FormData
    try {
      form = await new Request('http://simulator.invalid/', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: new Uint8Array(body),
      }).formData()
    } catch {
      return out // unparseable multipart: as if no fields were sent
    }
    for (const [k, v] of form) if (typeof v === 'string') (out[k] ??= []).push(v)
    return out
  }
  for (const [k, v] of new URLSearchParams(body.toString('utf8'))) (out[k] ??= []).push(v)
  return out
}

/**
 * An account's number listings never change, so each is serialised once: 10,000 records are
 * 1.9 MB of JSON, and building it on every request left the simulator collecting garbage while
 * the browser under measurement was still working on the response (bench noise on two cores).
 */
const listings = new WeakMap<Account, Map<string, string>>()
function listing(account: Account, type: 'all' | 'local' | 'tollfree', state: SimState): string {
  const { quirks } = state
  const broken = scenarioBroken(account, state)
  if (changesListing(quirks) || broken) return JSON.stringify({ success: '1', data: quirkListing(account, type, quirks, broken) })
  let byType = listings.get(account)
  if (!byType) listings.set(account, (byType = new Map()))
  let body = byType.get(type)
  if (body === undefined) {
    const data =
      type === 'all'
        ? account.numbers.map((n) => ({ number: n.number, tid: n.tid, type: n.type, country: n.country, webhook: n.webhook, dlr: n.dlr }))
        : account.numbers
            .filter((n) => n.type === type)
            .map((n) => ({ number: n.number, tid: n.tid, type: n.type, webhook: n.webhook, dlr: n.dlr }))
    body = JSON.stringify({ success: '1', data })
    byType.set(type, body)
  }
  return body
}

type ScenarioBreak = { number: string; webhook: string }

/** The scenario's broken webhook in this account's listing now, if its schedule says so. */
function scenarioBroken(account: Account, state: SimState): ScenarioBreak | null {
  const s = state.scenario
  if (!s || !account.byNumber.has(s.breaks.number)) return null
  const webhook = scenarioWebhook(s, s.breaks.number, (state.now ?? Date.now)())
  return webhook ? { number: s.breaks.number, webhook } : null
}

/** The listing as the quirks change it: removed and unlisted numbers left out, numbers listed twice with an extra tid first. */
function quirkListing(account: Account, type: 'all' | 'local' | 'tollfree', quirks: Quirks, broken: ScenarioBreak | null = null) {
  const out: Array<Record<string, string>> = []
  for (const n of account.numbers) {
    if (quirks.removed.has(n.number) || quirks.unlisted.has(n.number) || (type !== 'all' && n.type !== type)) continue
    const changed = broken?.number === n.number ? { webhook: broken.webhook } : quirks.callbacks.get(n.number)
    const item = {
      number: n.number,
      tid: n.tid,
      type: n.type,
      country: n.country,
      webhook: changed?.webhook ?? n.webhook,
      dlr: changed?.dlr ?? n.dlr,
    }
    if (quirks.listedTwice.has(n.number)) out.push({ ...item, tid: extraTid(n.number) })
    out.push(item)
    if (quirks.twoHistories.has(n.number)) out.push({ ...item, tid: extraTid(n.number) })
  }
  return out
}

function history(
  profile: NumberProfile,
  start: number,
  end: number,
  added: number,
  mediaBase: string,
  skew = false,
  refuses?: (atMs: number) => boolean,
) {
  let messages: MessageRecord[]
  let total: number
  let newest: MessageRecord | undefined
  if (profile.kind === 'hostile') {
    const all = hostileMessages(profile, mediaBase)
    total = all.length
    messages = all.slice(start - 1, end)
    newest = all[0]
  } else {
    total = profile.baseTotal + added
    messages = []
    // Record numbers are 1-based positions, newest first; seq counts from the oldest.
    for (let pos = start; pos <= Math.min(end, total); pos++)
      messages.push(messageAt(profile, total - pos + 1, total, mediaBase, added, skew, refuses))
    newest = total > 0 ? messageAt(profile, total, total, mediaBase, added, false, refuses) : undefined
  }
  return {
    success: '1',
    'message_count_requested ': end - start + 1,
    total_message_count: total,
    created_date: apiDate(profile.createdMs),
    most_recent_msg_id: newest ? newest.system_id : 0,
    most_recent_date: newest ? newest.GMTdate : '',
    tid: profile.tid,
    number: profile.number,
    optin: 'yes',
    messages,
  }
}

export async function operation(
  req: IncomingMessage,
  res: ServerResponse,
  op: string,
  accounts: Account[],
  state: SimState,
  mediaBase: string,
): Promise<void> {
  const contentType = String(req.headers['content-type'] ?? '')
  let raw: Buffer
  try {
    raw = await readBody(req, 1_000_000)
  } catch (err) {
    if (err instanceof TooLarge) return send(res, 413, '{"success":"0","message":"Request too large"}')
    throw err
  }
  const fields = await parseFields(raw, contentType)
  const one = (k: string) => (fields[k]?.length === 1 ? fields[k][0] : undefined)
  const account = accounts.find((a) => a.sysId === one('sys_id') && a.authToken === one('auth_token'))

  state.calls += 1
  const kept = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, CREDENTIAL_FIELDS.has(k) ? v.map(() => '[redacted]') : v]))
  state.requests.push({
    method: req.method ?? '',
    path: req.url ?? '',
    contentType,
    fields: kept,
    authenticated: account !== undefined,
    headers: req.headers,
  })
  if (state.requests.length > MAX_REQUESTS) state.requests.splice(0, state.requests.length - MAX_REQUESTS)

  const fault = takeFault(state.faults, op, one('number'))
  if (fault?.kind === 'latency' || fault?.kind === 'hang') {
    if (!(await delay(fault, res))) return
  }
  if (fault && answerFault(fault, op, res, one)) return

  const refuse = (r: { status: number; body: string; type?: string }) => send(res, r.status, r.body, r.type)
  if (!account) return refuse(authRefusal(state.dialect))
  const reject = (message: string, why: 'parameter' | 'number' | 'range') => refuse(refusal(state.dialect, message, why))

  if (op === 'allownednumbers') return send(res, 200, listing(account, 'all', state))
  if (op === 'ownednumbers') {
    const type = one('number_type')
    if (type !== 'local' && type !== 'tollfree') return reject('Missing or invalid parameter: number_type', 'parameter')
    return send(res, 200, listing(account, type, state))
  }
  // smshistory
  for (const k of ['number', 'tid', 'history_start', 'history_end']) if (!one(k)) return reject(`Missing parameter: ${k}`, 'parameter')
  const asked = one('number')!.replace(/^\+/, '')
  if (state.quirks.removed.has(asked)) return reject(REMOVAL_WORDINGS[state.quirks.wording], 'number')
  const own = account.byNumber.get(asked)
  // A number with two histories answers under its second tid too, with the second line's history.
  const profile =
    own && state.quirks.twoHistories.has(asked) && one('tid') === extraTid(asked) ? twinOf(own, extraTid(asked), TWIN_SIZE) : own
  if (!profile || profile.tid !== one('tid')) return reject('Unknown number or tid', 'number')
  // Held before it is made: requests sent together are answered in another order, each with the
  // history (and total) of the moment it is made.
  const hold = reorderDelay(state.quirks, profile.number)
  if (hold > 0) await new Promise((ok) => setTimeout(ok, hold))
  // Arrivals are the number's own line's; a second line keeps its size.
  const arriving = profile === own ? state.quirks.arrivals.get(profile.number) : undefined
  if (arriving) state.added.set(profile.number, (state.added.get(profile.number) ?? 0) + arriving)
  const start = Number(one('history_start'))
  const end = Number(one('history_end'))
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || end < start) return reject('Invalid history range', 'range')
  const live = state.now && profile.kind === 'normal' ? arrivedBy(profile, state.now()) : 0
  const sc = state.scenario
  const refuses = sc && sc.spike.number === profile.number ? (atMs: number) => scenarioRefuses(sc, profile.number, atMs) : undefined
  const added = profile === own ? (state.added.get(profile.number) ?? 0) : 0
  const answer = history(profile, start, end, added + live, mediaBase, state.quirks.skewedClock, refuses)
  // A total that counts messages the history no longer serves: the same records, a larger count.
  const over = state.quirks.overstated.get(profile.number) ?? 0
  if (over) answer.total_message_count = Math.max(0, answer.total_message_count + over)
  return send(res, 200, JSON.stringify(historyIn(state.dialect, answer)))
}
