/**
 * Quiet hours: was a message sent outside the recipient's daytime, in the recipient's local time?
 *
 * The recipient's zone comes from the area code (area-codes.ts), so the answer is approximate:
 * number portability and roaming mean a number's area code may not be where its owner is.
 * Parties that are not North American numbers, or whose area code is unknown or toll-free, get
 * null ("cannot tell"), never a guess. The 8:00–21:00 default is the window many state
 * telemarketing rules and carrier policies use; it is a setting, and not legal advice.
 */
import { zoneOf } from './area-codes.ts'
import { type DeskMessage, isOutbound } from './messages.ts'

export interface QuietWindow {
  /** First allowed local hour (0–23), inclusive. */
  start: number
  /** First quiet local hour (1–24), exclusive end of the allowed window. */
  end: number
}

export const DEFAULT_WINDOW: QuietWindow = { start: 8, end: 21 }

export interface LocalTime {
  zone: string
  /** Local calendar day, YYYY-MM-DD, for a per-day chart in the recipient's time. */
  day: string
  hour: number
  minute: number
  /** Minutes east of UTC at that instant (−300 for New York in winter). */
  offsetMinutes: number
}

const formatters = new Map<string, Intl.DateTimeFormat>()
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    })
    formatters.set(zone, f)
  }
  return f
}

// Every offset change in these zones happens on a whole or half hour of UTC (Newfoundland is
// UTC−3:30), so the offset is constant within each half-hour slot and can be cached by slot:
// sync asks for a million instants, mostly in a few thousand slots.
const SLOT_MS = 30 * 60_000
const offsets = new Map<string, number>()
const MAX_CACHED = 50_000

export function offsetMinutes(zone: string, ms: number): number {
  return wholeDayOffset(zone, Math.floor(ms / DAY_MS)) ?? slotOffset(zone, ms)
}

/**
 * The zone's offset on UTC day `day` (days since 1970-01-01) when it holds all that day, null
 * when it changes that day (then offsetMinutes finds the slot's). Most UTC days hold no change
 * at all: when a day's first and last slots agree, every slot between them does (no zone here
 * changes twice in a day), so one entry serves the whole day and a history spread thinly over
 * years asks Intl twice a day instead of once a message.
 */
export function wholeDayOffset(zone: string, day: number): number | null {
  const dayKey = `${zone}|d${day}`
  let whole = days.get(dayKey)
  if (whole === undefined) {
    const first = slotOffset(zone, day * DAY_MS)
    whole = first === slotOffset(zone, (day + 1) * DAY_MS - SLOT_MS) ? first : null
    if (days.size >= MAX_CACHED) days.clear()
    days.set(dayKey, whole)
  }
  return whole
}

const DAY_MS = 86_400_000
/** Per zone and UTC day: the offset when it holds all day, null when it changes that day. */
const days = new Map<string, number | null>()

function slotOffset(zone: string, ms: number): number {
  const key = `${zone}|${Math.floor(ms / SLOT_MS)}`
  const cached = offsets.get(key)
  if (cached !== undefined) return cached
  const slotStart = Math.floor(ms / SLOT_MS) * SLOT_MS
  const parts: Record<string, number> = {}
  for (const p of formatter(zone).formatToParts(slotStart)) if (p.type !== 'literal') parts[p.type] = Number(p.value)
  const asUtc = Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0)
  const offset = Math.round((asUtc - slotStart) / 60_000)
  if (offsets.size >= MAX_CACHED) offsets.clear()
  offsets.set(key, offset)
  return offset
}

function toMs(date: Date | string | number): number {
  const ms = date instanceof Date ? date.getTime() : typeof date === 'number' ? date : Date.parse(date)
  if (!Number.isFinite(ms)) throw new RangeError(`date: not a valid date: ${String(date)}`)
  return ms
}

/** The party's local time at `date`, or null when the party's zone cannot be told. */
export function localTime(party: string, date: Date | string | number): LocalTime | null {
  const zone = zoneOf(party)
  if (!zone) return null
  const ms = toMs(date)
  const offset = offsetMinutes(zone, ms)
  const local = new Date(ms + offset * 60_000)
  return {
    zone,
    day: local.toISOString().slice(0, 10),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    offsetMinutes: offset,
  }
}

/** The party's local hour (0–23) at `date`, or null when the party's zone cannot be told. */
export function localHour(party: string, date: Date | string | number): number | null {
  return localTime(party, date)?.hour ?? null
}

/**
 * True when `date` falls outside the allowed window in the party's local time (before `start`
 * or at/after `end`), false inside it, null when the party's zone cannot be told.
 */
export function isQuietHour(party: string, date: Date | string | number, window: QuietWindow = DEFAULT_WINDOW): boolean | null {
  if (!Number.isInteger(window.start) || window.start < 0 || window.start > 23) throw new RangeError('window.start: an hour from 0 to 23')
  if (!Number.isInteger(window.end) || window.end < 1 || window.end > 24 || window.end <= window.start)
    throw new RangeError('window.end: an hour from 1 to 24, after window.start')
  const hour = localHour(party, date)
  if (hour === null) return null
  return hour < window.start || hour >= window.end
}

export interface QuietHourSend<M extends DeskMessage = DeskMessage> {
  message: M
  local: LocalTime
}

/**
 * Outbound messages sent in the recipient's quiet hours, oldest first as given; messages to
 * parties whose zone cannot be told are left out (count them with `localTime(...) === null`).
 */
export function quietHourSends<M extends DeskMessage>(messages: readonly M[], window: QuietWindow = DEFAULT_WINDOW): QuietHourSend<M>[] {
  isQuietHour('12125550100', 0, window) // validates the window once, naming the field
  const out: QuietHourSend<M>[] = []
  for (const m of messages) {
    if (!isOutbound(m)) continue
    const local = localTime(m.party, m.date)
    if (local && (local.hour < window.start || local.hour >= window.end)) out.push({ message: m, local })
  }
  return out
}
