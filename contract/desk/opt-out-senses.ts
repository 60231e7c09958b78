/**
 * What the opt-out classifier (opt-out.ts) uses to tell an opt-out word used about the messages
 * from the same word used about something else ("take me off the waitlist", "quit my job"), to
 * read common misspellings, and to flag for a person a message that uses an opt-out word in a way
 * the rules cannot read. Works on normalised text (normaliseText: lower case, no accents).
 */

/** Words that name the messages themselves, or the list they come from. */
const MESSAGE_WORDS = new Set(
  (
    'text texts txt txts texting txting textos message messages msg msgs messaging msging sms mensajes mensaje ' +
    'notification notifications alert alerts promo promos promotion promotions marketing reminder reminders ' +
    'spam spamming ads ad offers offer deals list lists mailing subscription subscriptions stuff crap junk phone ' +
    'system records database contacts ' +
    'this these it them that everything all'
  ).split(' '),
)

/** Words that name something else a customer asks a business to stop, end, cancel or take them off. */
const OTHER_TOPICS = new Set(
  (
    'waitlist wait roster slot class appointment appt appointments order orders reservation booking delivery ' +
    'shipment package membership trial lease contract job team access password card account charge charges ' +
    'charged fee fees payment payments autopay bill bills billing warranty renewal auto email emails newsletter ' +
    'paper statements service cleaning plan size call calls calling tomorrow today tonight monday tuesday ' +
    'wednesday thursday friday saturday sunday week weekend morning afternoon evening visit session lesson ' +
    'subscription-box smoking drinking work school gym cita pedido rendez vous'
  ).split(' '),
)

const CLAUSE_VERBS = new Set("is was are am were has isn't wasn't".split(' '))
const DETERMINERS = new Set('the my your ur our this that a an his her their those'.split(' '))
const PREPOSITIONS = new Set('from of off on for with'.split(' '))
/** Courtesy and filler that may follow a keyword without changing what it is about. */
const FILLER = new Set('please pls plz thanks thank you u thx ty now asap already again just right away ok okay me us number'.split(' '))

function wordsOf(s: string, n: number): string[] {
  return (s.match(/[\p{L}\p{N}'-]+/gu) ?? []).slice(0, n)
}

/**
 * Whether what follows an opt-out word makes it about something else: a topic that is not the
 * messages ("off the waitlist", "my order", "of the warranty"), or a determiner or preposition
 * before a word that names no message ("the 3pm slot"). `after` is the text after the word, up to
 * the end of its sentence.
 */
export function aboutSomethingElse(after: string): boolean {
  const clause = (after.split(/[.!?;,\n]/)[0] ?? '').replace(/\bfor good\b|\bforever\b|\bpermanently\b/g, '')
  const next = wordsOf(clause, 6).filter((w) => !FILLER.has(w))
  // "quit it with the prices": what follows WITH says what IT is.
  if (next[0] === 'it' && next[1] === 'with') next.shift()
  // "no more texts or calls": the messages were named before the conjunction.
  if (next.length === 0 || next[0] === 'or' || next[0] === 'and') return false
  // The first word that is neither a determiner nor a preposition names what it is about.
  const content = next.find((w) => !DETERMINERS.has(w) && !PREPOSITIONS.has(w))
  // "stop sending me this": a determiner alone stands for the messages; "STOP this is a wrong
  // number": a new clause begins.
  if (content === undefined || CLAUSE_VERBS.has(content)) return false
  // "the list for the raffle": a list of something else.
  const then = next.slice(next.indexOf(content) + 1)
  if (/^lists?$/.test(content) && PREPOSITIONS.has(then[0] ?? '')) return !then.slice(1).some((w) => MESSAGE_WORDS.has(w))
  if (MESSAGE_WORDS.has(content)) return false
  if (OTHER_TOPICS.has(content)) return true
  return DETERMINERS.has(next[0] ?? '') || PREPOSITIONS.has(next[0] ?? '')
}

/** The word after the keyword names something, and not the messages ("quit piano", "end lease"). */
function aboutSomethingElseStrict(after: string): boolean {
  const first = wordsOf(after.split(/[.!?;,\n]/)[0] ?? '', 4).find((w) => !DETERMINERS.has(w) && !FILLER.has(w))
  if (first === undefined || FILLER.has(first) || MESSAGE_WORDS.has(first) || CLAUSE_VERBS.has(first)) return false
  return !/^(?:and|or|but|so|if|because|i|you|u|we|they|now|please|pls|it|with|texting|sending)$/.test(first)
}

/** "Why won't you stop", "can't you stop": a negation that asks. */
export const ASKING = /\b(?:why\s+(?:won'?t|don'?t|can'?t|wont|dont|cant)|won'?t|can'?t|cannot|wont|cant)\s+(?:you|u)\s+(?:just\s+)?$/

/** Texts are welcome: what is refused is calls, emails or paper ("stop calling me, text only"). */
export const TEXTS_WELCOME =
  /\b(?:texts?|texting|text me)\s+(?:only|instead)\b|\btexts?\s+(?:are|is)\s+(?:fine|ok|okay|good)\b|\bkeep\s+(?:the\s+|my\s+|sending\s+)?(?:texts|texting)\b/

/** The customer saying what they will do ("I'll stop texting you now"), not asking us to. */
export const SELF_FUTURE =
  /\b(?:(?:i'll|i will|i'm going to|i am going to|i'm gonna|ill|we'll|we will)\s+(?:\w+\s+)?|(?<!\b(?:you|u)\s)(?:need|have|had|got)\s+to\s+)$/

/** A question about when something happens ("when does the sale end?", "will the texts stop after…?"). */
const WHEN_QUESTION = /\b(?:does|do|did|will|would|is|are|when|what time)\b(?:\s+[\w']+){0,3}\s+$/
const HOW_DO_I = /\bhow\s+(?:do|can|would|could)\s+i\s+$/

/** A word that ends this (stop, quit, end, cancel…) used for the messages, not for something else. */
const OPT_OUT_STEM =
  /\b(stop|quit|end|revoke|revoking|cancel|unsubscribe|unsub|opt\s*-?\s*out|optout|opting out|arretez|desabonner|remove|removed|stopped)\b/g
/** -ing words after STOP or QUIT that are about us contacting them. */
const CONTACT_VERBS = new Set(
  'texting txting messaging msging sending contacting calling emailing spamming bothering bugging harassing receiving getting'.split(' '),
)
const NEGATED =
  /\b(?:don'?t|do not|dont|never|can'?t|cannot|couldn'?t|won'?t|wouldn'?t|not|didn'?t|doesn'?t|no need to)\s+(?:[\w']+\s+){0,2}$/
const NOUN_BEFORE = /(?:\b(?:the|a|bus|next|last|first|each|every|that|this|your|my|our)\s+|\bnon-?\s*)$/
const AFTER_OTHER = /^\s+(?:by|in|at|over|up|here|there|sign|light|of|on)\b|^\s*(?:&|and|n)\s+shop\b|^[\s-]+vous\b/
/** Someone saying what they do ("I cancel every time"); not for REVOKE or UNSUBSCRIBE, which say it by saying it. */
const SUBJECT_BEFORE = /\b(?:i|we|he|she|they|it)\s+$/
/** "can stop", "will stop": what something will do, not a request (unless about contacting). */
const MODAL_BEFORE = /\b(?:can|will|would|could|might|may|must|gonna)\s+$/
/** Appointments and orders, which CANCEL, END or QUIT in the same message are most likely about. */
const BOOKING = /\b(?:reschedul\w*|rebook\w*|appointments?|appts?|orders?|reservations?|bookings?)\b/

/** Whether the opt-out word at [start, end) of `text` is used about something else. */
function otherSense(text: string, start: number, end: number): boolean {
  // "not interested, please remove": a refusal before the word, not a negation of it.
  const before = text.slice(Math.max(0, start - 60), start).replace(/\bnot interested\b/g, ',')
  const after = text.slice(end)
  const next = /^\s+([\w']+)/.exec(after)?.[1] ?? ''
  // "stop laughing" is about something else; "stop pestering me" is about us.
  const atMe = /^\s+[\w']+\s+(?:me|us)\b/.test(after)
  if (next.endsWith('ing') && !CONTACT_VERBS.has(next) && !atMe) return true
  const word = text.slice(start, end)
  if (word === 'stopped' && !CONTACT_VERBS.has(next)) return true
  if (CONTACT_VERBS.has(next) || (next.endsWith('ing') && atMe))
    return (
      (NEGATED.test(before) && !ASKING.test(before)) ||
      SELF_FUTURE.test(before) ||
      TEXTS_WELCOME.test(text) ||
      aboutSomethingElse(after.slice(after.indexOf(next) + next.length))
    )
  if (HOW_DO_I.test(before)) return aboutSomethingElse(after)
  if (NEGATED.test(before) || SELF_FUTURE.test(before) || NOUN_BEFORE.test(before) || MODAL_BEFORE.test(before)) return true
  const asks = ['stop', 'quit', 'end', 'cancel'].includes(word)
  if (asks && SUBJECT_BEFORE.test(before)) return true
  // QUIT, END and CANCEL before a word that names nothing we send are about that thing ("quit piano").
  if (word !== 'stop' && asks && aboutSomethingElseStrict(after)) return true
  if (word !== 'stop' && word !== 'quit' && (/^\s+(?:it|that)\b/.test(after) || BOOKING.test(text))) return true
  if (AFTER_OTHER.test(after)) return true
  if (WHEN_QUESTION.test(before) && /\?/.test(after)) return true
  if (/^\s+(?:it|that)\b/.test(after) && pronounForSomethingElse(after, text)) return true
  return aboutSomethingElse(after) || TEXTS_WELCOME.test(text)
}

/**
 * The first opt-out word in `text` used about the messages, for a message the stricter rules did
 * not read as an opt-out: uncertain, so it is flagged for a person rather than dropped.
 */
export function uncertainOptOut(text: string): string | null {
  for (const m of text.matchAll(OPT_OUT_STEM)) {
    if (!otherSense(text, m.index, m.index + m[0].length)) return m[1] ?? m[0]
  }
  return null
}

/** Damerau–Levenshtein distance (optimal string alignment), or `max` + 1 when the lengths alone exceed it. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  const w = b.length + 1
  const d = new Uint8Array((a.length + 1) * w)
  const at = (i: number, j: number): number => d[i * w + j] ?? 0
  for (let i = 0; i <= a.length; i++) d[i * w] = i
  for (let j = 0; j <= b.length; j++) d[j] = j
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1)
      d[i * w + j] = v
    }
  return at(a.length, b.length)
}

/**
 * How many of `word`'s letters `w` lacks, counted with repeats: a lower bound on their distance
 * (an edit supplies at most one letter), and cheap enough to rule out nearly every word first.
 */
function missing(w: string, word: string): number {
  let rest = w
  let n = 0
  for (const c of word) {
    const i = rest.indexOf(c)
    if (i < 0) n++
    else rest = rest.slice(0, i) + rest.slice(i + 1)
  }
  return n
}

/** Words a misspelling may be of, with how far off it may be. */
const SPELLINGS: ReadonlyArray<readonly [string, number]> = [
  ['stop', 1],
  ['cancel', 1],
  ['unsubscribe', 2],
  ['texting', 1],
  ['messages', 1],
]
/** Real words a misspelling rule would otherwise take for one of those. */
const REAL_WORDS = new Set('step shop stops top slop stomp stow atop cancels camel testing tenting massages massage'.split(' '))

/** `text` with misspellings of the opt-out words put right ("sotp textng me" → "stop texting me"). */
export function correctSpelling(text: string): string {
  // Only words of a length and first letter some keyword has can be its misspelling: most
  // messages have none, and are returned as they are without a replace.
  return CANDIDATE.test(text) ? text.replace(/[\p{L}']+/gu, correctWord) : text
}

const CANDIDATE = /(?:^|[^\p{L}'])(?:s[\p{L}']{2,4}|c[\p{L}']{4,6}|u[\p{L}']{8,12}|t[\p{L}']{5,7}|m[\p{L}']{6,8})(?![\p{L}'])/u

function correctWord(w: string): string {
  if (w.length < 3 || REAL_WORDS.has(w)) return w
  for (const [word, max] of SPELLINGS) {
    if (w === word || w[0] !== word[0]) continue
    if (w.length < word.length - max || w.length > word.length + max || missing(w, word) > max) continue
    if (distance(w, word, max) <= max) return word
  }
  return w
}

/** Asking for the messages back, in words ("sign me back up", "resume texts"). Checked after every opt-out rule. */
export const OPT_IN_PHRASES =
  /\b(?:re-?subscribe|subscribe me|(?:send|get|receive|want)\b[\w' ]*\b(?:texts?|messages?|deals|offers)\s+again|opt\s*(?:me\s+)?(?:back\s+)?in|sign\s+me\s+(?:back\s+)?up|want\s+back\s+in|unstop|resume\s+(?:the\s+|your\s+|sending\s+)?(?:texts?|messages?|texting|sending)|start\s+(?:me|sending|texting)\b.*\bagain|start\s+(?:it\s+|me\s+)?back\s+up|(?:want|like)\s+to\s+(?:re-?)?subscribe|start\s+getting\s+(?:your\s+|the\s+)?(?:texts?|messages?)|yes,?\s+(?:i\s+want|please\s+send)\s+(?:the\s+|your\s+)?(?:texts?|messages?))\b/

/**
 * A message of one word that is a misspelling of STOP, CANCEL or UNSUBSCRIBE ("Stpo", "stoop",
 * "cancell", "unsubscribed"): as a whole message, a near-miss is far likelier a slip than the
 * real word it may also be.
 */
export function misspeltKeyword(word: string): string | null {
  if (word.length < 3 || ['step', 'shop', 'top', 'stops', 'soup'].includes(word)) return null
  for (const [keyword, max] of SPELLINGS.slice(0, 3)) {
    if (word !== keyword && word[0] === keyword[0] && missing(word, keyword) <= max && distance(word, keyword, max) <= max) return keyword
  }
  return null
}

/** "Please stop it" after "you billed me twice": a pronoun for something other than the messages. */
export function pronounForSomethingElse(part: string, text: string): boolean {
  return (
    /\b(?:it|that)\b/.test(part) &&
    /\b(?:charged?|billed|bill|billing|payment|card|fee|order|delivery)\b/.test(text) &&
    !/\b(?:texts?|messages?|spam|txts?)\b/.test(text)
  )
}
