/**
 * Opt-out and opt-in wording in an inbound message.
 *
 * Not legal advice. This is a heuristic that flags messages for a person to review and feeds the
 * "sent after opt-out" report; it does not decide what the law requires of a sender.
 *
 * What it recognises:
 * - the carrier keywords (CTIA's Messaging Principles and Best Practices; the common provider
 *   lists): STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT, as the whole message
 *   give or take case, punctuation, emoji and politeness ("Stop. Thank you", "STOP please",
 *   "stop!!", "STOP ACME", "STOP please STOP", "S T O P"), or as a sentence or line of its own
 *   ("STOP. Who is this?", "STOP" above a signature), and STOP, UNSUBSCRIBE, REVOKE or OPTOUT as a
 *   clause a comma sets off ("Stop, who is this?", "wrong number, stop");
 * - the "any reasonable means" of the FCC's 2024 revocation rule (47 CFR 64.1200(a)(10)):
 *   sentences such as "stop texting me", "please remove me from this list", "don't text me
 *   anymore", "leave me alone", "I don't want these messages", "how do I unsubscribe";
 * - re-opt-ins START, UNSTOP, YES and SUBSCRIBE as the whole message (as carriers apply them),
 *   and asking back in, in words ("sign me back up", "resume texts");
 * - then, for what none of that read (opt-out-senses.ts): misspellings ("sotp textng me"), and any
 *   opt-out word left that is not about something else, as an uncertain opt-out (confidence
 *   low) for a person to check. A miss is a compliance miss; a flag costs a person a look.
 *
 * Decisions, each reflected in the labelled corpus (opt-out-corpus.ts):
 * - CANCEL alone is an opt-out (carrier rule); a sentence about something else ("cancel my
 *   appointment?", "I need to cancel", "CANCEL APPOINTMENT") is not. "Cancel my subscription" or "cancel the texts"
 *   is, since on this channel the subscription is most likely the messages.
 * - ALTO, PARAR, CANCELAR, BAJA (Spanish) and ARRÊT/ARRET (French) alone are opt-outs with low
 *   confidence: Canadian carriers require ARRET beside STOP, some US programs list ALTO, and a
 *   reply in the customer's language is a reasonable means. Inside a sentence they are ordinary
 *   words ("Palo Alto", "volumen alto") and are not matched.
 * - A stop-sign emoji (🛑) alone is an opt-out with low confidence; a raised hand (✋) is not
 *   (it reads as "hi" or "wait" as often as "stop").
 * - Negated or unrelated uses are not opt-outs: "don't stop", "stop by the store",
 *   "can't stop laughing", "what time do you stop serving", "end of the month".
 * - "Not interested" and "wrong number" are left to a person: they refuse an offer or a
 *   misdirected message rather than revoke consent in words.
 * - An opt-out word about something else is not an opt-out: "take me off the waitlist", "quit
 *   my job", "I was charged twice, please stop it", "I'll stop texting you now", "stop calling
 *   me, text only".
 * Opt-out wording wins over opt-in wording in the same message ("yes, stop texting me").
 * Measured on a held-out set never tuned on (opt-out-heldout.ts): see the README's figures.
 */

import {
  aboutSomethingElse,
  ASKING,
  correctSpelling,
  misspeltKeyword,
  OPT_IN_PHRASES,
  pronounForSomethingElse,
  SELF_FUTURE,
  TEXTS_WELCOME,
  uncertainOptOut,
} from './opt-out-senses.ts'

export type OptKind = 'opt-out' | 'opt-in' | 'none'
export type Confidence = 'high' | 'medium' | 'low'

export interface OptOutResult {
  kind: OptKind
  /** The keyword or phrase that decided it, normalised (lower case, no accents). */
  keyword?: string
  confidence: Confidence
  /** Why, in words, for the reviewer. */
  reason: string
}

/** Lower case, compatibility forms folded, curly apostrophes straightened, accents removed. */
export function normaliseText(body: string): string {
  return body
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[’‘`´ʼ]/g, "'")
    .replace(/\s+/g, ' ')
    .trim()
}

function tokens(text: string): string[] {
  return (text.match(/[\p{L}\p{N}']+/gu) ?? []).map((t) => t.replace(/^'+|'+$/g, '')).filter((t) => t.length > 0)
}

const OPT_OUT_WORDS = new Map<string, string>([
  ['stop', 'stop'],
  ['stopall', 'stopall'],
  ['stop all', 'stopall'],
  ['unsubscribe', 'unsubscribe'],
  ['un subscribe', 'unsubscribe'],
  ['unsub', 'unsubscribe'],
  ['cancel', 'cancel'],
  ['cancel all', 'cancel'],
  ['end', 'end'],
  ['quit', 'quit'],
  ['revoke', 'revoke'],
  ['optout', 'optout'],
  ['opt out', 'optout'],
  // Frequent misspellings of the two commonest keywords.
  ['stpo', 'stop'],
  ['sotp', 'stop'],
  ['unsubcribe', 'unsubscribe'],
  ['unsuscribe', 'unsubscribe'],
  ['unsubscibe', 'unsubscribe'],
  ['unsubsribe', 'unsubscribe'],
])
const TRANSLATED_OPT_OUT = new Map<string, string>([
  ['alto', 'alto (Spanish)'],
  ['parar', 'parar (Spanish)'],
  ['cancelar', 'cancelar (Spanish)'],
  ['baja', 'baja (Spanish)'],
  ['arret', 'arret (French)'],
  ['arrete', 'arret (French)'],
  ['arreter', 'arret (French)'],
])
const OPT_IN_WORDS = new Map<string, string>([
  ['start', 'start'],
  ['subscribe', 'subscribe'],
  ['resubscribe', 'subscribe'],
  ['opt in', 'opt in'],
  ['optin', 'opt in'],
  ['restart', 'start'],
  ['resume', 'resume'],
  ['unstop', 'unstop'],
  ['un stop', 'unstop'],
  ['yes', 'yes'],
])

// Courtesy and filler around a keyword: "STOP please", "ok stop now thanks", "I said stop".
const TRAILING_FILLER = new Set(
  // The last are Spanish and French courtesy: "ALTO ya", "Cancelar por favor", "ARRÊT svp".
  'please pls plz plse thanks thank you u thankyou thx ty tks now asap immediately right away already ok okay sir maam again them everything ya no mas por favor porfa porfavor gracias svp merci'.split(
    ' ',
  ),
)
const LEADING_FILLER = new Set(
  'please pls plz ok okay k hi hello hey i said just oh um so again seriously omg no yes yeah reply'.split(' '),
)
// "stop it", "quit it", "stop this": objects only these keywords take.
const STOP_OBJECTS = new Set(['it', 'this', 'that', 'these'])
const TAKES_OBJECT = new Set(['stop', 'quit', 'end'])

function core(words: string[]): string[] {
  let start = 0
  let end = words.length
  while (end - start > 1 && TRAILING_FILLER.has(words[end - 1] ?? '')) end--
  while (end - start > 1 && LEADING_FILLER.has(words[start] ?? '')) start++
  let out = words.slice(start, end)
  // "S T O P": a keyword spelled out letter by letter.
  if (out.length > 2 && out.every((w) => w.length === 1)) out = [out.join('')]
  if (out.length === 2 && TAKES_OBJECT.has(out[0] ?? '') && STOP_OBJECTS.has(out[1] ?? '')) out = [out[0] ?? '']
  // "stop stop stop", and "STOP please STOP": one word said again, courtesy between.
  const said = out.filter((w) => !TRAILING_FILLER.has(w) && !LEADING_FILLER.has(w))
  if (out.length > 1 && said.length > 1 && said.every((w) => w === said[0])) out = [said[0] ?? '']
  // A sequence of letters like "stooopp": the keyword shouted.
  if (out.length === 1 && /^s+t+o+p+$/.test(out[0] ?? '')) out = ['stop']
  return out
}

/** Keywords that a sender's name in capitals may follow and still be the keyword. */
const NAME_KEYWORDS = new Set(['stop', 'stopall', 'unsubscribe', 'unsub', 'optout', 'revoke'])

type Hit = Omit<OptOutResult, 'kind'> & { kind: Exclude<OptKind, 'none'> }

function keywordHit(words: string[], original: string): Hit | null {
  const phrase = words.join(' ')
  const out = OPT_OUT_WORDS.get(phrase)
  if (out) return { kind: 'opt-out', keyword: out, confidence: 'high', reason: `the opt-out keyword ${out.toUpperCase()}` }
  const translated = TRANSLATED_OPT_OUT.get(phrase)
  if (translated) return { kind: 'opt-out', keyword: translated, confidence: 'low', reason: `a translated opt-out keyword: ${translated}` }
  const optIn = OPT_IN_WORDS.get(phrase)
  if (optIn) return { kind: 'opt-in', keyword: optIn, confidence: 'high', reason: `the opt-in keyword ${optIn.toUpperCase()}` }
  // "STOP ACME": a keyword followed by the sender's name in capitals, as CTIA examples show. Not
  // CANCEL, END or QUIT: in capitals they are as often about something else ("CANCEL APPOINTMENT").
  const [first, second] = words
  if (words.length === 2 && first && second && NAME_KEYWORDS.has(first)) {
    const upper = new RegExp(`\\b${first}\\s+([A-Z][A-Z0-9&]+)\\b`, 'i').exec(original)
    const name = upper?.[1]
    if (name && name === name.toUpperCase() && name.length >= 2 && !/^(BY|IN|AT|TO|ON|FOR)$/.test(name))
      return { kind: 'opt-out', keyword: OPT_OUT_WORDS.get(first), confidence: 'medium', reason: 'an opt-out keyword followed by a name' }
  }
  return null
}

// Words that undo what follows within a few words: "don't stop", "can't stop texting my friends".
const NEGATION = /\b(don'?t|do not|dont|never|can'?t|cannot|won'?t|not|didn'?t|doesn'?t|no need to)\s+(\w+\s+){0,2}$/

interface Phrase {
  re: RegExp
  label: string
  confidence: Confidence
  /** The phrase carries its own negation ("don't text me"), so a negation before it is part of it. */
  negative?: boolean
}

// Every repetition below is bounded and its alternatives are whole words followed by a space, so
// each text has one parse: an alternation like (any\s+more\s+|any\s+|more\s+)* backtracks
// exponentially on "any more any more … x" (70 s for 25 repeats, measured).
const MSG = `(?:texts?|txts?|messages?|msgs?|sms|notifications?|alerts?|promos?|promotions?|marketing|reminders?|spam|ads)`
const PHRASES: Phrase[] = [
  {
    re: new RegExp(
      `\\b(?:stop|quit|cease|end)\\s+(?:all\\s+)?(?:the\\s+|these\\s+|your\\s+|this\\s+)?(?:(?:promotional|marketing|automated|annoying|daily|weekly|random|spam|text|sms)\\s+)?(?:texting|txting|texts?|txts?|messaging|msging|messages?|msgs?|sms|sending|contacting|calling|emailing|spamming|bothering|bugging|harassing|receiving|getting|${MSG})\\b`,
    ),
    label: 'stop texting',
    confidence: 'medium',
  },
  {
    re: /\b(?:don'?t|do not|dont|never|no longer|(?:can|could)\s+(?:you|u)\s+not)\s+(?:ever\s+)?(?:text|txt|message|msg|contact|sms|call)(?:\s+(?:me|us|this number|my number)\b|\s*$|\s*[.!,])/,
    label: "don't text me",
    confidence: 'medium',
    negative: true,
  },
  {
    re: new RegExp(`\\b(?:don'?t|do not|dont|never)\\s+send\\s+(?:me\\s+)?(?:any\\s+)?(?:more\\s+)?(?:${MSG}|these|this|them|anything)\\b`),
    label: "don't send me messages",
    confidence: 'medium',
    negative: true,
  },
  {
    re: new RegExp(
      `\\b(?:i\\s+)?(?:don'?t|do not|dont|no longer)\\s+(?:want|wish)\\s+(?:to\\s+(?:receive|get)\\s+)?(?:(?:any|anymore|these|your|more|the)\\s+){0,4}${MSG}`,
    ),
    label: "I don't want these messages",
    confidence: 'medium',
    negative: true,
  },
  { re: new RegExp(`\\bno\\s+more\\s+${MSG}`), label: 'no more messages', confidence: 'medium' },
  {
    re: new RegExp(`\\bstop\\s+with\\s+(?:(?:the|these|your|all)\\s+){0,3}${MSG}`),
    label: 'stop with the messages',
    confidence: 'medium',
  },
  {
    re: /\b(?:remove|delete|drop|unsubscribe|unenroll|unenrol)\s+(?:me|my number|this number|my phone(?: number)?)\b/,
    label: 'remove me',
    confidence: 'medium',
  },
  { re: /\b(?:take|get)\s+(?:me|us|my number|this number)\s+off\b/, label: 'take me off', confidence: 'medium' },
  { re: /\bbe\s+(?:removed|taken off|unsubscribed|deleted)\b/, label: 'remove me', confidence: 'medium' },
  { re: /\bleave\s+me\s+alone\b/, label: 'leave me alone', confidence: 'medium' },
  { re: /\blose\s+(?:my|this)\s+number\b/, label: 'lose my number', confidence: 'medium' },
  { re: /\bunsubscribe\b|\bunsub\b/, label: 'unsubscribe', confidence: 'medium' },
  { re: /\bopt(?:ing)?(?:\s|-)?out\b|\bopt\s+(?:me|us|my number|this number)\s+out\b/, label: 'opt out', confidence: 'medium' },
  { re: /\b(?:revok|withdraw)\w*\b.*\b(?:consent|permission)\b/, label: 'revoke consent', confidence: 'medium' },
  {
    re: new RegExp(`\\bcancel\\s+(?:(?:my|the|all|these|your|this)\\s+){0,3}(?:subscription|${MSG})\\b`),
    label: 'cancel the messages',
    confidence: 'medium',
  },
  { re: /\b(?:f+u+c+k+|f\*+k|piss)\s+off\b/, label: 'abuse telling the sender to go away', confidence: 'low' },
  { re: /\bdar(?:me)?\s+de\s+baja\b/, label: 'darme de baja (Spanish)', confidence: 'low' },
  {
    re: /\bno\s+(?:me\s+)?(?:envien|envies|manden|mandes|escriban|escribas)\b.*\bmas\b|\bno\s+mas\s+mensajes\b/,
    label: 'no más mensajes (Spanish)',
    confidence: 'low',
  },
  {
    re: /\bcancelar\s+(?:los\s+|mis\s+)?(?:mensajes|textos)\b|\b(?:ya\s+)?no\s+quiero\s+(?:recibir\s+)?(?:mas\s+)?(?:mensajes|textos|sms)\b|\bbasta\s+(?:de\s+)?(?:mensajes|textos)\b|\bdej(?:en|e|a|ar)\s+de\s+(?:enviar|mandar|escribir)\w*|\bno\s+(?:me\s+)?(?:envien|envies|manden|mandes|escriban|escribas)\s+(?:mas\s+)?(?:mensajes|textos)\b/,
    label: 'no quiero más mensajes (Spanish)',
    confidence: 'low',
  },
  {
    re: /\b(?:desabonn\w*|desinscri\w*|arretez(?![\s-]+vous))\b|\bne\s+plus\s+(?:m'|me\s+)?envoyer\b/,
    label: 'désabonner (French)',
    confidence: 'low',
  },
  { re: /\bi\s+want\s+out\b/, label: 'I want out', confidence: 'medium' },
  {
    re: /\b(?:never|don'?t|do not|dont)\s+(?:ever\s+)?want\s+to\s+hear\s+from\s+(?:you|u|this number)\b/,
    label: 'never want to hear from you',
    confidence: 'medium',
    negative: true,
  },
  { re: /\bplus\s+de\s+(?:messages|textos|sms)\b|\bne\s+veux\s+plus\b/, label: 'plus de messages (French)', confidence: 'low' },
]

function phraseHit(text: string): Hit | null {
  for (const p of PHRASES) {
    const m = p.re.exec(text)
    if (!m) continue
    const before = text.slice(0, m.index)
    if (!p.negative && NEGATION.test(before) && !ASKING.test(before)) continue
    // "I'll stop texting you now", "take me off the waitlist", "stop calling me, text only".
    if (SELF_FUTURE.test(before) || aboutSomethingElse(text.slice(m.index + m[0].length)) || TEXTS_WELCOME.test(text)) continue
    return { kind: 'opt-out', keyword: p.label, confidence: p.confidence, reason: `opt-out wording: "${m[0]}"` }
  }
  return null
}

const SENTENCE_KEYWORDS = new Set(['stop', 'stopall', 'unsubscribe', 'cancel', 'end', 'quit', 'revoke', 'optout'])
/**
 * Keywords that count as a clause a comma sets off too ("Stop, who is this?", "wrong number,
 * stop"). Not CANCEL, END or QUIT: "Cancel, I need to reschedule" is about an appointment.
 */
const CLAUSE_KEYWORDS = new Set(['stop', 'stopall', 'unsubscribe', 'revoke', 'optout'])

function sentenceHit(text: string): Hit | null {
  const sentences = text.split(/[.!?;\n]+|\s[-–—]\s/)
  for (const s of sentences) {
    const clauses = s.split(',')
    // A sentence of its own (of a message of several), or a clause of one a comma sets off.
    const parts = sentences.length > 1 ? [s, ...(clauses.length > 1 ? clauses : [])] : clauses.length > 1 ? clauses : []
    for (const part of parts) {
      const keyword = OPT_OUT_WORDS.get(core(tokens(part)).join(' '))
      if (!keyword || !(part === s ? SENTENCE_KEYWORDS : CLAUSE_KEYWORDS).has(keyword)) continue
      if (pronounForSomethingElse(part, text)) continue
      return {
        kind: 'opt-out',
        keyword,
        confidence: 'medium',
        reason: `the opt-out keyword ${keyword.toUpperCase()} as a ${part === s ? 'sentence' : 'clause'} of its own`,
      }
    }
  }
  return null
}

const NONE: OptOutResult = { kind: 'none', confidence: 'high', reason: 'no opt-out or opt-in wording' }

export function classifyOptOut(body: string | null | undefined): OptOutResult {
  if (!body) return NONE
  const stripped = body.replace(/[\s\p{P}\uFE0F]/gu, '')
  if (stripped.length > 0 && /^(?:🛑)+$/u.test(stripped))
    return { kind: 'opt-out', keyword: '🛑', confidence: 'low', reason: 'a stop-sign emoji alone' }
  const text = normaliseText(body)
  const words = tokens(text)
  if (words.length === 0)
    return body.includes('🛑')
      ? { kind: 'opt-out', keyword: '🛑', confidence: 'low', reason: 'a stop-sign emoji beside other emoji: for a person to check' }
      : NONE
  // Line breaks end sentences too ("STOP" above a signature): normaliseText folds them into spaces.
  const lines = body
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .map(normaliseText)
    .join('\n')
  return keywordHit(core(words), body) ?? phraseHit(text) ?? sentenceHit(lines) ?? uncertain(text, lines, body)
}

/**
 * What the rules above did not read: misspellings, asking back in, and an opt-out word the
 * rules cannot place. An opt-out found here is uncertain (confidence low): it is flagged for a
 * person, who sees the reason, and counts as an opt-out until they say otherwise.
 */
function uncertain(text: string, lines: string, body: string): OptOutResult {
  const fixed = correctSpelling(text)
  const words = core(tokens(fixed))
  const [only] = words
  const misspelt = words.length === 1 && only ? misspeltKeyword(only) : null
  if (misspelt) return { kind: 'opt-out', keyword: misspelt, confidence: 'low', reason: `a misspelling of ${misspelt.toUpperCase()}` }
  if (fixed !== text) {
    const hit = keywordHit(words, body) ?? phraseHit(fixed) ?? sentenceHit(correctSpelling(lines))
    if (hit?.kind === 'opt-out') return { ...hit, confidence: 'low', reason: `${hit.reason}, read through a misspelling` }
  }
  const optIn = OPT_IN_PHRASES.exec(fixed)
  if (optIn) return { kind: 'opt-in', keyword: optIn[0], confidence: 'medium', reason: `opt-in wording: "${optIn[0]}"` }
  const word = /^no more\W*$/.test(fixed) ? 'no more' : uncertainOptOut(fixed)
  if (word)
    return {
      kind: 'opt-out',
      keyword: word,
      confidence: 'low',
      reason: `the word "${word}" where the rules cannot tell what it is about: for a person to check`,
    }
  if (body.includes('🛑'))
    return { kind: 'opt-out', keyword: '🛑', confidence: 'low', reason: 'a stop-sign emoji beside other words: for a person to check' }
  return NONE
}
