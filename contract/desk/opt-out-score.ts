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
  /**
   * Opt-out verdicts the classifier is unsure of (confidence low): each is flagged for a person
   * and treated as an opt-out until they decide, so in `optOut` it counts as an opt-out, a true
   * positive when the message is one and a false positive when it is not. `optOuts` of them were.
   */
  uncertain: { total: number; optOuts: number }
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

type Floors = { readonly [C in 'optOut' | 'optIn']: { readonly precision: number; readonly recall: number } }

/**
 * Floors a little under what the classifier measures on the sets it was tuned on (the corpus and
 * the development set), so a regression of two or three messages fails the test and the bench.
 * They say nothing about messages the rules have not seen: HELD_OUT_FLOORS does.
 */
export const SCORE_FLOORS: Floors = { optOut: { precision: 0.95, recall: 0.96 }, optIn: { precision: 0.95, recall: 0.9 } }

/** What the classifier is asked to reach on the held-out set (opt-out-heldout.ts): recall first, since a miss is a compliance miss. */
export const HELD_OUT_TARGETS: Floors = { optOut: { precision: 0.95, recall: 0.99 }, optIn: { precision: 0.95, recall: 0.9 } }

/**
 * What the held-out set is held to: the targets where they are met, and the figure measured where
 * they are not. THE OPT-OUT RECALL TARGET IS NOT MET: measured once after tuning, the held-out set
 * gave opt-out recall 97.9 % (140 of 143; the target 99 % needs 142), precision 100 % (140/140),
 * opt-in recall 94.1 % (16/17). The floor is that measured recall, so it cannot slip further; the
 * misses were not tuned away, since that would make these figures as meaningless as the corpus's.
 * To raise it, tune on the development set and measure this set again.
 */
export const HELD_OUT_FLOORS: Floors = {
  optOut: { precision: HELD_OUT_TARGETS.optOut.precision, recall: 0.979 },
  optIn: HELD_OUT_TARGETS.optIn,
}

/** The floors `s` falls under, in words; empty when it meets them all. */
export function missedFloors(s: CorpusScore, floors: Floors = SCORE_FLOORS): string[] {
  const missed: string[] = []
  for (const cls of ['optOut', 'optIn'] as const)
    for (const m of ['precision', 'recall'] as const)
      if (s[cls][m] < floors[cls][m]) missed.push(`${cls} ${m} ${(s[cls][m] * 100).toFixed(1)} % < ${floors[cls][m] * 100} %`)
  return missed
}

export function scoreCorpus(corpus: readonly CorpusEntry[], classify: (body: string) => OptOutResult): CorpusScore {
  const pairs: Array<[Label, Label]> = []
  const errors: CorpusScore['errors'] = []
  const uncertain = { total: 0, optOuts: 0 }
  for (const [text, expected, note] of corpus) {
    const r = classify(text)
    const got = r.kind
    pairs.push([expected, got])
    if (got === 'opt-out' && r.confidence === 'low') {
      uncertain.total++
      if (expected === 'opt-out') uncertain.optOuts++
    }
    if (got !== expected) errors.push({ text, expected, got, ...(note ? { note } : {}) })
  }
  return { total: corpus.length, optOut: score(pairs, 'opt-out'), optIn: score(pairs, 'opt-in'), uncertain, errors }
}

export function formatScore(s: CorpusScore): string {
  const pct = (n: number) => `${(n * 100).toFixed(1)} %`
  const line = (name: string, c: ClassScore) =>
    `${name}: precision ${pct(c.precision)} (${c.truePositives}/${c.truePositives + c.falsePositives}), recall ${pct(c.recall)} (${c.truePositives}/${c.truePositives + c.falseNegatives})`
  const unsure = `uncertain (flagged for a person, counted as opt-out verdicts): ${s.uncertain.total}, of which ${s.uncertain.optOuts} opt-outs`
  return [`${s.total} labelled messages`, line('opt-out', s.optOut), line('opt-in', s.optIn), unsure].join('\n')
}
