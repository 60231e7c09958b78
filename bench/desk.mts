/**
 * The support desk's pure rules, measured: opt-out precision and recall on the labelled corpus
 * (the figures the README quotes), segment counts against the hand-worked corpus, and how many
 * bodies a second each classifier handles (sync runs both on every message it stores).
 * Run: `BENCH_ONLY=desk-rules npm run bench` (part of every `npm run bench`). Writes
 * .bench/desk-rules.json; exits 1 when a score falls under the floors the corpus test holds
 * (contract/desk/opt-out.test.ts) or a segment count disagrees.
 */
import { fileURLToPath } from 'node:url'
import { classifyOptOut } from '../contract/desk/opt-out.ts'
import { OPT_OUT_CORPUS } from '../contract/desk/opt-out-corpus.ts'
import { formatScore, missedFloors, SCORE_FLOORS, scoreCorpus } from '../contract/desk/opt-out-score.ts'
import { SEGMENT_CORPUS } from '../contract/desk/segment-corpus.ts'
import { segmentInfo } from '../contract/desk/segments.ts'
import { localTime } from '../contract/desk/quiet-hours.ts'
import { atLeast, figure, missed, writeGroup, type Figure } from './stats.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const GROUP = 'desk rules'
const figures: Figure[] = []

const score = scoreCorpus(OPT_OUT_CORPUS, classifyOptOut)
console.log('Opt-out classifier (not legal advice)')
console.log(formatScore(score))
for (const e of score.errors)
  console.log(`  expected ${e.expected}, got ${e.got}: ${JSON.stringify(e.text)}${e.note ? ` (${e.note})` : ''}`)

const agree = SEGMENT_CORPUS.filter((c) => {
  const s = segmentInfo(c.body)
  return s.encoding === c.encoding && s.units === c.units && s.segments === c.segments
}).length
console.log(`\nSegments: ${agree}/${SEGMENT_CORPUS.length} corpus messages agree with the hand-worked values (Twilio calculator rules)`)
const under = missedFloors(score)
if (under.length) console.log(`\nUnder the floors: ${under.join('; ')}`)
for (const cls of ['optOut', 'optIn'] as const)
  for (const m of ['precision', 'recall'] as const)
    figures.push(
      figure(GROUP, `${cls === 'optOut' ? 'opt-out' : 'opt-in'} ${m}`, '%', [score[cls][m] * 100], {
        budget: atLeast(SCORE_FLOORS[cls][m] * 100),
        family: 'opt-out and opt-in: precision and recall',
        note: `${score.total} labelled messages`,
      }),
    )
figures.push(
  figure(GROUP, 'segment counts as hand-worked', 'messages', [agree], {
    budget: atLeast(SEGMENT_CORPUS.length),
  }),
)

/** Calls per second over the corpus bodies, repeated for about half a second. */
function rate(name: string, bodies: string[], fn: (b: string) => unknown): void {
  for (const b of bodies) fn(b) // warm-up
  let calls = 0
  const start = performance.now()
  while (performance.now() - start < 500 && calls < 5_000_000) {
    for (const b of bodies) fn(b)
    calls += bodies.length
  }
  const perSecond = calls / ((performance.now() - start) / 1000)
  console.log(`${name}: ${Math.round(perSecond).toLocaleString('en-US')} bodies/s`)
  figures.push(figure(GROUP, `${name}: bodies a second`, '/s', [perSecond]))
}
console.log('')
rate(
  'classifyOptOut',
  OPT_OUT_CORPUS.map(([t]) => t),
  classifyOptOut,
)
rate(
  'segmentInfo',
  SEGMENT_CORPUS.map((c) => c.body).filter((b) => b.length <= 200),
  segmentInfo,
)

// A year of instants a few minutes apart over the simulator's party area codes: the cache by half hour carries it.
const parties = ['19175550142', '16465550142', '13105550142', '14695550142', '17025550142', '14165550142', '17095550142']
const instants = Array.from({ length: 5000 }, (_, i) => Date.UTC(2026, 0, 1) + i * 6_311_000)
let k = 0
rate(
  'localTime',
  instants.map(() => parties[k++ % parties.length] ?? ''),
  (p) => localTime(p, instants[k++ % instants.length] ?? 0),
)

console.log(`\nwritten to ${writeGroup(ROOT, 'desk-rules', figures)}`)
if (missed(figures).length) process.exitCode = 1
