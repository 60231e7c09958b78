import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

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

export type Comparator = '<=' | '<' | '>=' | '>'

/**
 * A budget as data: the figure's statistic (its median unless `on` says the worst or the best
 * run) compared with `limit`. A figure that could not be taken (NaN) fails its budget.
 */
export interface Budget {
  op: Comparator
  limit: number
  on?: 'median' | 'max' | 'min'
}

export const atMost = (limit: number, on?: Budget['on']): Budget => ({ op: '<=', limit, ...(on ? { on } : {}) })
export const under = (limit: number, on?: Budget['on']): Budget => ({ op: '<', limit, ...(on ? { on } : {}) })
export const atLeast = (limit: number, on?: Budget['on']): Budget => ({ op: '>=', limit, ...(on ? { on } : {}) })

export interface Figure {
  /** The group as the table shows it ('numbers (10,000 rows)', 'index'). */
  group: string
  /** The database engine, where the group runs on both. */
  engine?: string
  name: string
  unit: string
  /** The median of the runs (the one run's value when there is one). */
  value: number
  min: number
  max: number
  /** The first and third quartiles, from four runs up. */
  q1?: number
  q3?: number
  runs: number
  /** Every run's value, in the order measured (interleaved with the baseline's, where there is one). */
  samples: number[]
  budget?: Budget
  /** Computed from `budget` when the figure is made: never set by hand. */
  pass?: boolean
  /** Figures of one family share one line of the summary (its worst member against its own budget). */
  family?: string
  baseline?: number
  ratio?: number
  note?: string
}

/** The statistic a budget applies to. */
export function checked(f: Pick<Figure, 'value' | 'min' | 'max' | 'budget'>): number {
  const on = f.budget?.on
  return on === 'max' ? f.max : on === 'min' ? f.min : f.value
}

export function meets(v: number, b: Budget): boolean {
  if (!Number.isFinite(v)) return false
  return b.op === '<=' ? v <= b.limit : b.op === '<' ? v < b.limit : b.op === '>=' ? v >= b.limit : v > b.limit
}

export function passes(f: Figure): boolean {
  return !f.budget || meets(checked(f), f.budget)
}

/**
 * How close a figure sits to its budget: 1 at the limit, above 1 past it (for "at most" the value
 * over the limit, for "at least" the limit over the value). The summary shows a family's highest.
 */
export function margin(f: Figure): number {
  const b = f.budget
  if (!b) return 0
  const v = checked(f)
  if (!Number.isFinite(v)) return Number.POSITIVE_INFINITY
  if (b.op === '<=' || b.op === '<') return b.limit === 0 ? (v > 0 ? Number.POSITIVE_INFINITY : 0) : v / b.limit
  return v === 0 ? Number.POSITIVE_INFINITY : b.limit / v
}

export function figure(group: string, name: string, unit: string, samples: number[], extra: Partial<Figure> = {}): Figure {
  const f: Figure = {
    group,
    name,
    unit,
    value: median(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
    ...(samples.length >= 4 ? { q1: percentile(samples, 25), q3: percentile(samples, 75) } : {}),
    runs: samples.length,
    samples: samples.map((x) => Number(x.toFixed(3))),
    ...extra,
  }
  if (f.budget) f.pass = passes(f)
  return f
}

/** What a group leaves for the summary: its figures, and the error that stopped it, if one did. */
export interface GroupResult {
  group: string
  when: string
  figures: Figure[]
  error?: string
  [extra: string]: unknown
}

/** Where a group's figures go: .bench/<group>.json, read by bench/main.mts after the groups. */
export const groupFile = (root: string, group: string) => join(root, '.bench', `${group}.json`)

export function writeGroup(root: string, group: string, figures: Figure[], extra: Record<string, unknown> = {}, error?: unknown): string {
  mkdirSync(join(root, '.bench'), { recursive: true })
  const out: GroupResult = {
    group,
    when: new Date().toISOString(),
    ...extra,
    figures,
    ...(error === undefined ? {} : { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  }
  const file = groupFile(root, group)
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`)
  return file
}

/** The budgets `figures` missed, as "group / name" (engine too, where there is one). */
export function missed(figures: Figure[]): string[] {
  return figures.filter((f) => f.budget && !passes(f)).map((f) => `${f.group}${f.engine ? ` (${f.engine})` : ''} / ${f.name}`)
}
