import type { CorpusEntry, Label } from './opt-out-corpus.ts'
import type { OptOutResult } from './opt-out.ts'

export interface ClassScore {
  truePositives: number
  falsePositives: number
  falseNegatives: number
  precision: number
  recall: number
}

export interface CorpusScore {
  total: number
  optOut: ClassScore
  optIn: ClassScore
  /** Every entry the classifier got wrong, for the report. */
  errors: Array<{ text: string; expected: Label; got: Label; note?: string }>
}

function score(pairs: Array<[Label, Label]>, label: Label): ClassScore {
  let tp = 0
  let fp = 0
  let fn = 0
  for (const [expected, got] of pairs) {
    if (got === label && expected === label) tp++
    else if (got === label) fp++
    else if (expected === label) fn++
  }
  return {
    truePositives: tp,
    falsePositives: fp,
    falseNegatives: fn,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
  }
}

/** Precision and recall of each class (opt-out, opt-in) over a labelled corpus. */
/**
 * Floors a little under what the classifier measures on the shipped corpus, so a regression of two
 * or three messages fails the corpus test and the bench; the held-out entries at the end of the
 * corpus keep them honest.
 */
export const SCORE_FLOORS = { optOut: { precision: 0.95, recall: 0.96 }, optIn: { precision: 0.95, recall: 0.9 } } as const

/** The floors `s` falls under, in words; empty when it meets them all. */
export function missedFloors(s: CorpusScore): string[] {
  const missed: string[] = []
  for (const cls of ['optOut', 'optIn'] as const)
    for (const m of ['precision', 'recall'] as const)
      if (s[cls][m] < SCORE_FLOORS[cls][m]) missed.push(`${cls} ${m} ${(s[cls][m] * 100).toFixed(1)} % < ${SCORE_FLOORS[cls][m] * 100} %`)
  return missed
}

export function scoreCorpus(corpus: readonly CorpusEntry[], classify: (body: string) => OptOutResult): CorpusScore {
  const pairs: Array<[Label, Label]> = []
  const errors: CorpusScore['errors'] = []
  for (const [text, expected, note] of corpus) {
    const got = classify(text).kind
    pairs.push([expected, got])
    if (got !== expected) errors.push({ text, expected, got, ...(note ? { note } : {}) })
  }
  return { total: corpus.length, optOut: score(pairs, 'opt-out'), optIn: score(pairs, 'opt-in'), errors }
}

export function formatScore(s: CorpusScore): string {
  const pct = (n: number) => `${(n * 100).toFixed(1)} %`
  const line = (name: string, c: ClassScore) =>
    `${name}: precision ${pct(c.precision)} (${c.truePositives}/${c.truePositives + c.falsePositives}), recall ${pct(c.recall)} (${c.truePositives}/${c.truePositives + c.falseNegatives})`
  return [`${s.total} labelled messages`, line('opt-out', s.optOut), line('opt-in', s.optIn)].join('\n')
}
