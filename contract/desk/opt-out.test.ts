import { describe, expect, it } from 'vitest'
import { classifyOptOut, normaliseText } from './opt-out.ts'
import { OPT_OUT_CORPUS } from './opt-out-corpus.ts'
import { OPT_OUT_DEV } from './opt-out-dev.ts'
import { OPT_OUT_HELD_OUT } from './opt-out-heldout.ts'
import { formatScore, HELD_OUT_FLOORS, HELD_OUT_TARGETS, missedFloors, SCORE_FLOORS, scoreCorpus } from './opt-out-score.ts'

/*
 * Three labelled sets, and which is which:
 * - the corpus (opt-out-corpus.ts) and the development set (opt-out-dev.ts) are what the rules
 *   were tuned on: their figures show the rules still do what they were shaped to do, no more;
 * - the held-out set (opt-out-heldout.ts) was written and committed before the classifier was
 *   run on it and is never tuned on: its figures are the ones the README publishes.
 * An uncertain verdict (kind opt-out, confidence low) is flagged for a person and treated as an
 * opt-out until they decide, so it is scored as an opt-out: it catches an opt-out for recall, and
 * is a false positive against precision when the message is not one. Nothing is dropped as
 * uncertain: a message is either flagged or read as no opt-out.
 */

/** A message with case, punctuation and emoji set aside, to find one set repeating another. */
const bare = (t: string) =>
  t
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim() || t

describe('opt-out held-out set (never tuned on)', () => {
  it('has at least 100 labelled messages, none repeating a message the rules were tuned on', () => {
    expect(OPT_OUT_HELD_OUT.length).toBeGreaterThanOrEqual(100)
    expect(OPT_OUT_HELD_OUT.filter(([, l]) => l === 'opt-out').length).toBeGreaterThanOrEqual(100)
    expect(new Set(OPT_OUT_HELD_OUT.map(([t]) => t)).size).toBe(OPT_OUT_HELD_OUT.length)
    const tuned = new Set([...OPT_OUT_CORPUS, ...OPT_OUT_DEV].map(([t]) => bare(t)))
    expect(OPT_OUT_HELD_OUT.filter(([t]) => tuned.has(bare(t))).map(([t]) => t)).toEqual([])
  })

  it("covers the FCC's 2024 words in sentences, re-opt-ins, and the same words used about something else", () => {
    const optOuts = OPT_OUT_HELD_OUT.filter(([, l]) => l === 'opt-out').map(([t]) => normaliseText(t))
    const others = OPT_OUT_HELD_OUT.filter(([, l]) => l === 'none').map(([t]) => normaliseText(t))
    for (const word of ['stop', 'quit', 'end', 'revoke', 'opt out', 'cancel', 'unsubscribe']) {
      const re = new RegExp(`\\b${word === 'revoke' ? 'revok' : word}`)
      // In an ordinary sentence: the word and at least two others.
      expect(optOuts.filter((t) => re.test(t) && t.split(' ').length >= 3).length, word).toBeGreaterThanOrEqual(3)
      if (word !== 'unsubscribe') expect(others.filter((t) => re.test(t)).length, word).toBeGreaterThanOrEqual(1)
    }
    expect(OPT_OUT_HELD_OUT.filter(([, l]) => l === 'opt-in').length).toBeGreaterThanOrEqual(15)
    const labels = new Map(OPT_OUT_HELD_OUT.map(([t, l]) => [t, l]))
    expect(labels.get('Stop the spam please')).toBe('opt-out')
    expect(labels.get('please take me off the waitlist')).toBe('none')
    expect(labels.get('I got charged twice this month, please stop it')).toBe('none')
  })

  it('meets its floors, and prints its figures', () => {
    const s = scoreCorpus(OPT_OUT_HELD_OUT, classifyOptOut)
    console.log(`Held-out set (never tuned on):\n${formatScore(s)}`)
    expect(missedFloors(s, HELD_OUT_FLOORS)).toEqual([])
    // The targets are opt-out recall 0.99 and precision 0.95. Precision meets its target; recall
    // does NOT (97.9 %, 140 of 143): its floor is the measured figure (see HELD_OUT_FLOORS).
    expect(HELD_OUT_TARGETS.optOut).toEqual({ precision: 0.95, recall: 0.99 })
    expect(HELD_OUT_FLOORS.optOut.precision).toBe(HELD_OUT_TARGETS.optOut.precision)
    // So the published "not met" cannot go stale: when recall reaches the target, this fails, and
    // the floors and the README change with it.
    expect(s.optOut.recall).toBeLessThan(HELD_OUT_TARGETS.optOut.recall)
  })
})

describe('opt-out development set (tuned on)', () => {
  it('has messages of every kind, none repeating a held-out one', () => {
    expect(OPT_OUT_DEV.length).toBeGreaterThanOrEqual(100)
    expect(new Set(OPT_OUT_DEV.map(([t]) => t)).size).toBe(OPT_OUT_DEV.length)
    for (const label of ['opt-out', 'opt-in', 'none'] as const) expect(OPT_OUT_DEV.some(([, l]) => l === label)).toBe(true)
    const heldOut = new Set(OPT_OUT_HELD_OUT.map(([t]) => bare(t)))
    expect(OPT_OUT_DEV.filter(([t]) => heldOut.has(bare(t))).map(([t]) => t)).toEqual([])
  })

  it('meets the floors of the sets the rules were tuned on, and prints its figures', () => {
    const s = scoreCorpus(OPT_OUT_DEV, classifyOptOut)
    console.log(`Development set (tuned on):\n${formatScore(s)}`)
    expect(missedFloors(s)).toEqual([])
  })
})

describe('opt-out corpus (tuned on)', () => {
  it('has at least 200 labelled messages with every trap the desk names', () => {
    expect(OPT_OUT_CORPUS.length).toBeGreaterThanOrEqual(200)
    const texts = new Set(OPT_OUT_CORPUS.map(([t]) => t))
    for (const trap of [
      "don't stop",
      'stop by the store',
      'STOP.',
      'Stop texting me',
      'ALTO',
      'ARRÊT',
      '🛑',
      '✋',
      'cancel my appointment?',
    ])
      expect(texts.has(trap), trap).toBe(true)
    expect(new Set(OPT_OUT_CORPUS.map(([t]) => t)).size).toBe(OPT_OUT_CORPUS.length)
  })

  it('meets its precision and recall floors, and prints them', () => {
    const s = scoreCorpus(OPT_OUT_CORPUS, classifyOptOut)
    console.log(`Corpus (tuned on):\n${formatScore(s)}`)
    expect(missedFloors(s)).toEqual([])
    expect(s.optOut.precision).toBeGreaterThanOrEqual(SCORE_FLOORS.optOut.precision)
    expect(s.optIn.recall).toBeGreaterThanOrEqual(SCORE_FLOORS.optIn.recall)
  })

  it('scores a classifier that says opt-out to everything as imprecise', () => {
    const s = scoreCorpus(OPT_OUT_CORPUS, () => ({ kind: 'opt-out', confidence: 'low', reason: 'test' }))
    expect(s.optOut.recall).toBe(1)
    expect(s.optOut.precision).toBeLessThan(0.6)
    // Uncertain verdicts count as opt-outs: flagging everything catches every opt-out, at a price.
    expect(s.uncertain).toEqual({ total: OPT_OUT_CORPUS.length, optOuts: s.optOut.truePositives })
    expect(missedFloors(s, HELD_OUT_FLOORS)).toEqual(expect.arrayContaining([expect.stringMatching(/^optOut precision/)]))
    // The floors the bench exits 1 on name what fell under them.
    expect(missedFloors(s)).toEqual(expect.arrayContaining([expect.stringMatching(/^optOut precision \d+\.\d % < 95 %$/)]))
  })
})

describe('classifyOptOut', () => {
  it.each([
    ['STOP', 'opt-out', 'stop', 'high'],
    ['Stop. Thank you', 'opt-out', 'stop', 'high'],
    ['STOP please', 'opt-out', 'stop', 'high'],
    ['stop!!', 'opt-out', 'stop', 'high'],
    ['UNSUBSCRIBE', 'opt-out', 'unsubscribe', 'high'],
    ['opt-out', 'opt-out', 'optout', 'high'],
    ['STOP. Who is this?', 'opt-out', 'stop', 'medium'],
    ['stop texting me', 'opt-out', 'stop texting', 'medium'],
    ['please remove me from this list', 'opt-out', 'remove me', 'medium'],
    ["don't text me anymore", 'opt-out', "don't text me", 'medium'],
    ['leave me alone', 'opt-out', 'leave me alone', 'medium'],
    ['ALTO', 'opt-out', 'alto (Spanish)', 'low'],
    ['ARRÊT', 'opt-out', 'arret (French)', 'low'],
    ['🛑', 'opt-out', '🛑', 'low'],
    ['START', 'opt-in', 'start', 'high'],
    ['unstop', 'opt-in', 'unstop', 'high'],
    ['Yes please', 'opt-in', 'yes', 'high'],
  ] as const)('%s → %s (%s)', (text, kind, keyword, confidence) => {
    const r = classifyOptOut(text)
    expect(r).toMatchObject({ kind, keyword, confidence })
    expect(r.reason.length).toBeGreaterThan(0)
  })

  it.each([
    "don't stop",
    'stop by the store',
    "can't stop laughing",
    'what time do you stop serving',
    "I'll stop by",
    'end of the month',
    'cancel my appointment?',
    '✋',
    'Where is the Palo Alto store?',
    'Please don’t stop texting me',
    '',
  ])('%j is not an opt-out', (text) => {
    expect(classifyOptOut(text).kind).toBe('none')
  })

  it('takes null and undefined bodies (media-only messages) as none', () => {
    expect(classifyOptOut(null).kind).toBe('none')
    expect(classifyOptOut(undefined).kind).toBe('none')
  })

  it('reads a keyword on a line of its own as a sentence of its own (a signature or a question beside it)', () => {
    for (const text of ['STOP\nSent from my iPhone', 'Who is this?\nSTOP', 'Stop\r\n\r\n-- \r\nJane Doe', 'unsubscribe\u2028Bob'])
      expect(classifyOptOut(text), JSON.stringify(text)).toMatchObject({ kind: 'opt-out', confidence: 'medium' })
    for (const text of ["Don't stop\nthanks", 'See you at the end\nThanks', 'Can I cancel\nmy appointment?'])
      expect(classifyOptOut(text).kind, JSON.stringify(text)).toBe('none')
  })

  it('takes a name in capitals after STOP or UNSUBSCRIBE only: CANCEL, END or QUIT before one is about something else', () => {
    expect(classifyOptOut('STOP ACME').kind).toBe('opt-out')
    expect(classifyOptOut('UNSUBSCRIBE ACME').kind).toBe('opt-out')
    for (const text of ['CANCEL APPOINTMENT', 'CANCEL ORDER', 'END CALL', 'QUIT SMOKING'])
      expect(classifyOptOut(text).kind, text).toBe('none')
  })

  it('lets opt-out wording win over a YES in the same message', () => {
    expect(classifyOptOut('Yes, stop texting me').kind).toBe('opt-out')
  })

  // A guard against catastrophic backtracking, not a benchmark: the first input took 70 s when an
  // alternation in a repeated group could parse "any more" two ways. Linear patterns take about a millisecond.
  it('classifies 1,600-character adversarial repetitions without backtracking blow-up', () => {
    const inputs = [
      `i don't want ${'any more '.repeat(176)}x`,
      `stop with ${'the '.repeat(396)}x`,
      `cancel ${'my '.repeat(530)}x`,
      `${'revoke '.repeat(228)}consen`,
      `no me envien ${'no '.repeat(520)}`,
      `${"don't ".repeat(266)}x`,
    ]
    const start = performance.now()
    for (const text of inputs) expect(classifyOptOut(text).kind).not.toBe('opt-in')
    expect(performance.now() - start).toBeLessThan(2000)
  })

  it('normalises case, accents and curly apostrophes', () => {
    expect(normaliseText('  Don’t  ARRÊT ')).toBe("don't arret")
  })
})
