export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!
}

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

export interface Figure {
  group: string
  name: string
  unit: string
  median: number
  min: number
  max: number
  runs: number
  /** Every run's value, in the order measured (interleaved with the baseline's, where there is one). */
  samples: number[]
  budget?: { op: '<=' | '<'; value: number }
  baseline?: number
  ratio?: number
  ratioBudget?: number
  /** Which statistic the budget applies to: the median (default) or the worst run. */
  budgetOn?: 'median' | 'max'
  note?: string
}

export function figure(group: string, name: string, unit: string, samples: number[], extra: Partial<Figure> = {}): Figure {
  return {
    group,
    name,
    unit,
    median: median(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
    runs: samples.length,
    samples: samples.map((x) => Number(x.toFixed(3))),
    ...extra,
  }
}

export function passes(f: Figure): boolean {
  const b = f.budget
  const v = f.budgetOn === 'max' ? f.max : f.median
  const within = !b || (b.op === '<=' ? v <= b.value : v < b.value)
  const ratioOk = f.ratioBudget === undefined || f.ratio === undefined || f.ratio <= f.ratioBudget
  return within && ratioOk
}
