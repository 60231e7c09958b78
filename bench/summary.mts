/**
 * The one-screen summary bench/main.mts prints after the groups: the commit, then one line per
 * budget (figures of one family share a line: its member nearest to, or furthest past, its own
 * budget), the engines side by side, ✓ or ✗; a group that failed without a missed budget says so.
 */
import { checked, margin, passes, type Budget, type Figure, type GroupResult } from './stats.ts'

export interface GroupRun {
  /** The name BENCH_ONLY knows it by, and its file's: .bench/<file>.json. */
  file: string
  exitCode: number | null
  /** Null when the group left no file (it crashed before writing one). */
  result: GroupResult | null
}

const isBudget = (b: unknown): b is Budget =>
  typeof b === 'object' && b !== null && typeof (b as Budget).limit === 'number' && typeof (b as Budget).op === 'string'

export function fmt(n: number): string {
  if (!Number.isFinite(n)) return 'n/a'
  const a = Math.abs(n)
  if (a >= 1000) return Math.round(n).toLocaleString('en-US')
  if (a >= 100) return n.toFixed(0)
  if (a >= 10) return n.toFixed(1)
  if (a < 1 && n !== 0) return n.toFixed(3)
  return n.toFixed(2)
}

const OP = { '<=': '≤', '<': '<', '>=': '≥', '>': '>' } as const

export function budgetText(f: Figure): string {
  const b = f.budget!
  const on = b.on === 'max' ? 'worst ' : b.on === 'min' ? 'best ' : ''
  return `${on}${OP[b.op]} ${b.limit.toLocaleString('en-US', { maximumFractionDigits: 3 })}${f.unit ? ` ${f.unit}` : ''}`
}

function valueText(f: Figure): string {
  const spread = f.runs > 1 ? ` (${fmt(f.min)}–${fmt(f.max)})` : ''
  return `${fmt(checked(f))}${spread}`
}

/** The group as a short label: "numbers (10,000 rows)" → "numbers". */
const short = (group: string) => group.replace(/ \(.*$/, '')

interface Line {
  label: string
  /** Per engine ('' where the group has none), the figures on this line. */
  cells: Map<string, Figure[]>
}

/** The budgeted figures as summary lines: one per figure, or per family, engines side by side. */
function linesOf(figures: Figure[]): Line[] {
  const lines = new Map<string, Line>()
  for (const f of figures) {
    if (!isBudget(f.budget)) continue
    const label = `${short(f.group)} · ${f.family ?? f.name}`
    const line = lines.get(label) ?? { label, cells: new Map() }
    const engine = f.engine ?? ''
    line.cells.set(engine, [...(line.cells.get(engine) ?? []), f])
    lines.set(label, line)
  }
  return [...lines.values()]
}

/** A cell: the one figure, or a family's member with the highest margin (and how many it has). */
function cell(fs: Figure[]): { text: string; ok: boolean; worst: Figure; failed: Figure[] } {
  const worst = fs.reduce((a, b) => (margin(b) > margin(a) ? b : a))
  const failed = fs.filter((f) => !passes(f))
  const ok = failed.length === 0
  const of = fs.length > 1 ? ` [${fs.length}]` : ''
  return { text: `${valueText(worst)}${of} ${ok ? '✓' : '✗'}`, ok, worst, failed }
}

const ENGINE_LABEL: Record<string, string> = { pglite: 'PGlite', postgres: 'Postgres', both: 'both' }

/** `notes`: lines printed under the head (the machine's readings, bench/machine.mts). */
export function summarise(runs: GroupRun[], head: string, notes: string[] = []): { text: string; failed: boolean } {
  const out: string[] = []
  const lines: string[] = []
  let budgets = 0
  let misses = 0
  let failed = false
  for (const run of runs) {
    const figures = run.result?.figures ?? []
    const groupMisses = figures.filter((f) => isBudget(f.budget) && !passes(f)).length
    for (const line of linesOf(figures)) {
      const cells = [...line.cells].map(([engine, fs]) => ({ engine, ...cell(fs) }))
      const ok = cells.every((c) => c.ok)
      budgets += [...line.cells.values()].reduce((n, fs) => n + fs.length, 0)
      // Each engine in its own column, PGlite first, even where one has no budget on this line.
      const keys = [...line.cells.keys()]
      const slots = keys.some((k) => k === 'pglite' || k === 'postgres') ? [...new Set(['pglite', 'postgres', ...keys])] : keys
      const shown = slots
        .map((engine) => {
          const c = cells.find((x) => x.engine === engine)
          return c ? `${engine ? `${ENGINE_LABEL[engine] ?? engine} ` : ''}${c.text}` : ''
        })
        .map((t) => t.padEnd(30))
        .join(' ')
      // The budget of the figure shown (a family's members may differ; each cell shows its worst).
      lines.push(`${ok ? '✓' : '✗'} ${line.label.slice(0, 56).padEnd(56)} ${budgetText(cells[0]!.worst).padEnd(17)} ${shown.trimEnd()}`)
      for (const c of cells)
        if (line.cells.get(c.engine)!.length > 1)
          for (const f of c.failed)
            lines.push(
              `    ✗ ${c.engine ? `${ENGINE_LABEL[c.engine] ?? c.engine}: ` : ''}${f.name}: ${valueText(f)}, budget ${budgetText(f)}`,
            )
    }
    misses += groupMisses
    if (run.exitCode !== 0 || run.result?.error || !run.result) {
      failed = true
      if (run.result?.error || !run.result || !groupMisses) {
        const why = run.result?.error?.split('\n')[0] ?? (run.result ? `exited ${run.exitCode} without a missed budget` : 'left no figures')
        lines.push(`✗ ${run.file} did not finish (exit ${run.exitCode ?? 'signal'}): ${why.slice(0, 100)}`)
      }
    }
  }
  if (misses) failed = true
  out.push(head, ...notes)
  out.push(
    `${budgets} budget${budgets === 1 ? '' : 's'}: ${budgets - misses} met, ${misses} missed${failed && !misses ? '; a group did not finish' : ''}. ` +
      'Value: the budgeted statistic (min–max over runs); [n]: a family of n, its figure nearest its budget shown',
  )
  out.push(...lines)
  out.push(failed ? 'bench: FAILED' : 'bench: every budget met')
  return { text: out.join('\n'), failed }
}
