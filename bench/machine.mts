/**
 * Is the machine quiet? Two readings bench/main.mts takes before the first group and after each,
 * while no group runs:
 *
 * - **speed**: a fixed piece of work, timed: JSON.parse of a 1,000-record history page as the
 *   simulator writes one, twenty times, then a sort of 200,000 numbers, 31 times over (after one
 *   warm-up, about 2 s), the median. It touches no disk and no network, so on one machine it moves
 *   only when the machine's cores are slower or shared. On this 2-core virtual machine, idle, one
 *   time took about 65 ms, and for stretches of a second or more about 88 (pinned to either core,
 *   too): the cores' own speed changes under the bench.
 * - **others' CPU**: the share of both cores busy over one second (/proc/stat), with the bench
 *   itself idle: another process's work.
 *
 * The summary prints both and says when the run was not quiet, so that a miss is read as the
 * machine's or the code's. Neither moves a budget or the exit status.
 */
import { readFileSync } from 'node:fs'
import { median } from './stats.ts'

export interface MachineReading {
  /** Where in the run: 'start', or the group just finished. */
  at: string
  /** The fixed work's median time of 31, ms (lower is faster). */
  speedMs: number
  /** The share of the machine's cores busy over a second while the bench idled, % (NaN where /proc/stat is missing). */
  othersPct: number
}

/** A deterministic page: the same bytes every run (a seeded generator, no clock). */
function pageText(): string {
  let seed = 12345
  const next = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed)
  const words = ['appointment', 'confirmed', 'thanks', 'your code is', 'cancel', 'shipped', 'see you at', 'reply STOP']
  const messages = Array.from({ length: 1000 }, (_, i) => ({
    tid: '1001',
    system_id: String(10_000_000 + i),
    message_id: `m${next()}`,
    phone: `1555${String(next() % 10_000_000).padStart(7, '0')}`,
    direction: next() % 2 ? 'outbound' : 'inbound',
    GMTdate: `2026-0${1 + (next() % 9)}-1${next() % 10} 1${next() % 10}:2${next() % 10}:0${next() % 10}`,
    body: Array.from({ length: 1 + (next() % 12) }, () => words[next() % words.length]).join(' '),
    status: next() % 7 ? '200 delivered' : '451 undeliverable',
    mms: next() % 5 ? 'no' : 'yes',
  }))
  return JSON.stringify({ success: '1', total_message_count: '1000', messages })
}

const TEXT = pageText()

function work(): number {
  let n = 0
  for (let i = 0; i < 20; i++) n += (JSON.parse(TEXT) as { messages: unknown[] }).messages.length
  let seed = 7
  const xs = Float64Array.from({ length: 200_000 }, () => ((seed = (seed * 16807) % 2147483647), seed))
  xs.sort()
  return n + xs[0]!
}

function cpuTimes(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!
    const v = line.trim().split(/\s+/).slice(1).map(Number)
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0)
    return { busy: total - v[3]! - v[4]!, total }
  } catch {
    return null
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** One reading (about 2.5 s): others' CPU over a second, then the fixed work. */
export async function readMachine(at: string): Promise<MachineReading> {
  const a = cpuTimes()
  await sleep(1000)
  const b = cpuTimes()
  const othersPct = a && b && b.total > a.total ? (100 * (b.busy - a.busy)) / (b.total - a.total) : Number.NaN
  work()
  const times: number[] = []
  for (let i = 0; i < 31; i++) {
    const t0 = performance.now()
    work()
    times.push(performance.now() - t0)
  }
  return { at, speedMs: median(times), othersPct }
}

/** How much slower the slowest reading's work ran than the fastest's, above which a run is not called quiet. */
export const SPEED_SPREAD_MAX = 0.15
/** Others' CPU share above which a run is not called quiet. */
export const OTHERS_MAX_PCT = 15

/** The summary's lines on the machine, and whether it stayed quiet through the run. */
export function machineLines(readings: MachineReading[]): { lines: string[]; quiet: boolean } {
  if (readings.length === 0) return { lines: [], quiet: true }
  const speeds = readings.map((r) => r.speedMs)
  const fastest = Math.min(...speeds)
  const slowest = Math.max(...speeds)
  const spread = slowest / fastest - 1
  const others = readings.map((r) => r.othersPct).filter((x) => Number.isFinite(x))
  const busiest = others.length ? Math.max(...others) : Number.NaN
  const quiet = spread <= SPEED_SPREAD_MAX && !(busiest > OTHERS_MAX_PCT)
  const points = readings.map((r) => `${r.at} ${r.speedMs.toFixed(0)}`).join(', ')
  const lines = [
    `machine: a fixed workload took ${fastest.toFixed(0)}–${slowest.toFixed(0)} ms (lower is faster; ${points}); others' CPU ${others.length ? `at most ${busiest.toFixed(0)} %` : 'unknown'} between groups`,
  ]
  if (!quiet)
    lines.push(
      `machine: NOT QUIET: ${spread > SPEED_SPREAD_MAX ? `its slowest reading ${(spread * 100).toFixed(0)} % above its fastest (limit ${SPEED_SPREAD_MAX * 100} %)` : ''}` +
        `${spread > SPEED_SPREAD_MAX && busiest > OTHERS_MAX_PCT ? '; ' : ''}${busiest > OTHERS_MAX_PCT ? `other processes used ${busiest.toFixed(0)} % of the cores (limit ${OTHERS_MAX_PCT} %)` : ''}. ` +
        'A miss may be the machine’s rather than the code’s: run again on a quiet machine before calling it a regression.',
    )
  return { lines, quiet }
}
