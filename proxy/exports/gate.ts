import type { ServerResponse } from 'node:http'
import { ProxyError } from '../errors.ts'

/**
 * An export whose reader takes nothing more for this long is ended and its turn freed: two
 * readers taking 100 bytes a second held the turns an admin's export waited for, and a 45 MB
 * file at that pace would hold one for days. Each export's closing entry says how many rows went.
 * EXPORT_STALL_S sets it (the index's configuration); this is its default.
 */
export const EXPORT_STALL_MS = 60_000

/**
 * Waits until `res` takes more (drain) or closes: true then. A reader that takes nothing for
 * `stallMs` is cut (the response destroyed): false, and the export stops writing.
 */
export function drained(res: ServerResponse, stallMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const stalled = setTimeout(() => {
      off()
      res.destroy()
      resolve(false)
    }, stallMs)
    const done = () => {
      off()
      resolve(true)
    }
    const off = () => {
      clearTimeout(stalled)
      res.off('drain', done)
      res.off('close', done)
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

/**
 * How many exports run at once: per person and in total. An export holds a database connection
 * (PGlite's only one, in turns) for as long as it streams, so a few people downloading whole
 * histories must not crowd out everyone's searches.
 *
 * An export over a limit waits its turn in one first-come queue instead of being refused: when a
 * slot frees, every waiting export that now fits starts, in the order they came (one whose owner
 * already runs their share waits, and does not hold back the others behind it). While it waits
 * it knows its place in line and when it should start, from the running exports' pace. The queue
 * is bounded, in total and per person (a person may have as many waiting as they may run, whatever
 * they run now), so a burst
 * cannot park requests without end: past the bound the request is refused with 429 and
 * Retry-After, the soonest the running exports in its way should finish.
 */
export interface ExportGate {
  /** A ticket: running at once when a slot is free, else waiting in line; an ExportRefused (429) past the queue's bound. */
  enter: (who: string) => ExportTicket
  running: () => number
  waiting: () => number
  /** How long an export's reader may take nothing before the export is cut and its turn freed (ms). */
  stallMs: number
}

export interface QueuePlace {
  /** 1 is next in line. */
  position: number
  /** Seconds until it should start, from the running exports' pace; null until each has a pace. */
  startsInS: number | null
}

export interface ExportTicket {
  /** Where it waits; null once it runs (or has left). */
  place: () => QueuePlace | null
  /** Resolves when it may run: at once when a slot was free. Never settles if it leaves the queue first. */
  turn: Promise<void>
  /** Rows known so far: `total` once counted, `written` as they go (for the estimates). */
  progress: (written: number, total: number) => void
  /** Frees its slot, or its place in line. Idempotent. */
  leave: () => void
}

/** 429: the contract has no "busy" kind; `timeout` is the one whose remedy is "try again later". */
export class ExportRefused extends ProxyError {
  constructor(
    message: string,
    readonly retryAfterS: number,
  ) {
    super(429, { kind: 'timeout', message, retryAfterMs: retryAfterS * 1000 })
  }
}

interface Entry {
  who: string
  /** When it started running; null while it waits. */
  started: number | null
  written: number
  total: number
  admit: () => void
}

/** Retry-After when nothing is known yet of a running export's pace (s). */
const UNKNOWN_PACE_S = 10
const MAX_RETRY_S = 600

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

export function createExportGate(
  limits: { perUser: number; total: number; queue: number; stallMs?: number },
  now: () => number = Date.now,
): ExportGate {
  const running = new Set<Entry>()
  const queue: Entry[] = []
  const runningFor = (who: string, among: Iterable<{ who: string }> = running) => {
    let n = 0
    for (const r of among) if (r.who === who) n++
    return n
  }
  /** Milliseconds until a running export should end, by its own pace so far; null before it has one. */
  const leftMs = (r: Entry, t: number): number | null => {
    const elapsed = t - (r.started ?? t)
    if (r.written <= 0 || r.total <= 0 || elapsed <= 0) return null
    return (Math.max(0, r.total - r.written) / r.written) * elapsed
  }
  /** Seconds until the soonest of `those` should end: the Retry-After of a refusal. */
  const soonest = (those: Entry[]): number => {
    const t = now()
    let best = Infinity
    for (const r of those) best = Math.min(best, leftMs(r, t) ?? Infinity)
    return Number.isFinite(best) ? Math.min(MAX_RETRY_S, Math.max(1, Math.ceil(best / 1000))) : UNKNOWN_PACE_S
  }
  /** Starts every waiting export that fits, first come first. */
  const pump = () => {
    for (let i = 0; i < queue.length && running.size < limits.total;) {
      const e = queue[i]!
      if (runningFor(e.who) >= limits.perUser) {
        i++
        continue
      }
      queue.splice(i, 1)
      e.started = now()
      running.add(e)
      e.admit()
    }
  }
  /**
   * When each waiting export should start (ms from now): the queue played forward, each running
   * export ending when its pace says and each waiting one, once started, taking as long as the
   * running ones take on average (nothing else is known of it before it has counted its rows).
   * Null for all while a running export has no pace yet (its first batch): a guess then would
   * only be the constant it stood on.
   */
  const forecast = (): Map<Entry, number> | null => {
    const t = now()
    const ends: Array<{ who: string; at: number }> = []
    let sum = 0
    for (const r of running) {
      const left = leftMs(r, t)
      if (left === null) return null
      ends.push({ who: r.who, at: left })
      sum += t - r.started! + left
    }
    const typical = running.size > 0 ? sum / running.size : 0
    const starts = new Map<Entry, number>()
    const pending = [...queue]
    let clock = 0
    while (pending.length > 0) {
      for (let i = 0; i < pending.length && ends.length < limits.total;) {
        const e = pending[i]!
        if (runningFor(e.who, ends) >= limits.perUser) {
          i++
          continue
        }
        pending.splice(i, 1)
        starts.set(e, clock)
        ends.push({ who: e.who, at: clock + typical })
      }
      if (pending.length === 0 || ends.length === 0) break
      ends.sort((a, b) => a.at - b.at)
      clock = ends.shift()!.at
    }
    return starts
  }

  const refusal = (who: string): ExportRefused | null => {
    const mineRunning = runningFor(who)
    const mineWaiting = runningFor(who, queue)
    // Waiting is bounded per person whatever they run: with none running, one person's burst took
    // the whole queue, and everyone else's exports, an admin's too, were refused behind it.
    const waitCap = Math.min(limits.perUser, limits.queue)
    // (With no queue at all, EXPORTS_QUEUE=0, one over the person's share is refused here, any other below.)
    if (mineWaiting >= waitCap && (mineRunning >= limits.perUser || waitCap > 0)) {
      const mine = [...running].filter((r) => r.who === who)
      const s = soonest(mine.length > 0 ? mine : [...running])
      return new ExportRefused(
        (mineWaiting === 0
          ? `You already have ${plural(mineRunning, 'export')} running, the most one person may run at once (EXPORTS_PER_USER). `
          : `You already have ${mineRunning > 0 ? `${plural(mineRunning, 'export')} running and ` : ''}${mineWaiting} waiting, the most one person may have (EXPORTS_PER_USER). `) +
          `The soonest should finish in about ${s} s: try again then.`,
        s,
      )
    }
    if (queue.length >= limits.queue) {
      const s = soonest([...running])
      return new ExportRefused(
        `${running.size} exports are running on this server, the most it runs at once (EXPORTS_MAX), so searches stay fast` +
          (limits.queue > 0 ? `, and ${queue.length} more are waiting, the most its queue holds (EXPORTS_QUEUE). ` : '. ') +
          `The soonest should finish in about ${s} s: try again then.`,
        s,
      )
    }
    return null
  }

  return {
    running: () => running.size,
    waiting: () => queue.length,
    stallMs: limits.stallMs ?? EXPORT_STALL_MS,
    enter: (who) => {
      let admit = () => {}
      const turn = new Promise<void>((resolve) => {
        admit = resolve
      })
      const e: Entry = { who, started: null, written: 0, total: 0, admit }
      const fits = running.size < limits.total && runningFor(who) < limits.perUser
      if (fits) {
        e.started = now()
        running.add(e)
        admit()
      } else {
        const refused = refusal(who)
        if (refused) throw refused
        queue.push(e)
      }
      return {
        turn,
        place: () => {
          const i = queue.indexOf(e)
          if (i < 0) return null
          const ms = forecast()?.get(e)
          return { position: i + 1, startsInS: ms === undefined ? null : Math.max(1, Math.ceil(ms / 1000)) }
        },
        progress: (written, total) => {
          e.written = written
          e.total = total
        },
        leave: () => {
          const i = queue.indexOf(e)
          if (i >= 0) queue.splice(i, 1)
          else if (!running.delete(e)) return
          pump()
        },
      }
    },
  }
}
