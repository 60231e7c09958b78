import type { Bound, Outcome } from '../../api/callback-endpoints'
import type { CallbackChange, CheckNowResult, RiskPeriod } from '../../api/callbacks'

/** The words the Callbacks page uses for outcomes, changes and periods (pure: tested beside). */

export const OUTCOME_WORDS: Record<Outcome, string> = {
  up: 'Up',
  'client-error': 'Answers, but 4xx',
  failing: 'Failing',
  redirect: 'Redirects elsewhere',
  private: 'Not checked (private address)',
  invalid: 'Not checked (not a web address)',
}

/** A glyph beside the words, so state is never colour alone (and the words say it anyway). */
export const OUTCOME_MARK: Record<Outcome, string> = {
  up: '●',
  'client-error': '◐',
  failing: '✕',
  redirect: '↪',
  private: '○',
  invalid: '○',
}

export const OUTCOME_CLASS: Record<Outcome, string> = {
  up: 'text-green-800',
  'client-error': 'text-amber-800',
  failing: 'text-red-800',
  redirect: 'text-red-800',
  private: 'text-slate-700',
  invalid: 'text-slate-700',
}

const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })
const dayTime = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' })
const sameDay = (a: Date, b: Date) => a.toDateString() === b.toDateString()

/** "between 2 Mar 2026, 14:05 and 14:10" (the second time's day only when it differs). */
export function windowWords(start: string, end: string): string {
  const a = new Date(start)
  const b = new Date(end)
  if (a.getTime() === b.getTime()) return `at ${dayTime.format(a)}`
  return `between ${dayTime.format(a)} and ${sameDay(a, b) ? time.format(b) : dayTime.format(b)}`
}

/** A moment known only within a bound: "since 14:05", or "since some time between 14:05 and 14:10". */
export function sinceWords(b: Bound): string {
  return b.earliest === b.latest ? `since ${dayTime.format(new Date(b.earliest))}` : `since some time ${windowWords(b.earliest, b.latest)}`
}
export function untilWords(b: Bound): string {
  return b.earliest === b.latest ? `until ${dayTime.format(new Date(b.earliest))}` : `until some time ${windowWords(b.earliest, b.latest)}`
}

const show = (v: string | null) => (v === null || v === '' ? '(none)' : v)

/** One change in words, without its window. */
export function changeWords(c: CallbackChange): string {
  switch (c.kind) {
    case 'webhook':
      return `Webhook changed from ${show(c.from)} to ${show(c.to)}`
    case 'dlr':
      return `Delivery-report (dlr) address changed from ${show(c.from)} to ${show(c.to)}`
    case 'tid':
      return `tid changed from ${show(c.from)} to ${show(c.to)}`
    case 'type':
      return `Type changed from ${show(c.from)} to ${show(c.to)}`
    case 'added':
      return `Added to the account (tid ${show(c.to)})`
    case 'removed':
      return `No longer listed by the account (tid was ${show(c.from)})`
    case 'listed-twice':
      return `Listed more than once, under the tids ${show(c.to)}`
    case 'listed-once':
      return `Listed once again (under ${show(c.to)})`
    default:
      return `${c.kind}: ${show(c.from)} → ${show(c.to)}`
  }
}

/** Why messages of a period are at risk, in words. */
export function reasonWords(p: RiskPeriod): string {
  const which = p.callback === 'webhook' ? 'webhook' : 'delivery-report (dlr) endpoint'
  switch (p.reason) {
    case 'missing':
      return `The ${which} was empty: incoming messages were not sent anywhere.`
    case 'invalid':
      return `The ${which} was not a web address (${p.url}): nothing could receive the callbacks.`
    case 'elsewhere':
      return `The ${which} pointed to ${p.url} instead of ${p.usual ?? 'its usual address'}, before and after.`
    case 'failing':
      return `The ${which} ${p.url} was failing its checks.`
  }
}

/** The period's span in words, honest about what the listings and checks can tell. */
export function periodWords(p: RiskPeriod): string {
  const since = sinceWords(p.start)
  const from = `${since.charAt(0).toUpperCase()}${since.slice(1)}`
  return p.end ? `${from}, ${untilWords(p.end)}.` : `${from}, and still so.`
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** What Check now did: the listing (baseline, changes, or a gap and why) and how many addresses it checked. */
export function checkNowWords(r: CheckNowResult): string {
  const listing = r.listing.ok
    ? r.listing.baseline
      ? 'First listing taken (the baseline).'
      : `Listed: ${plural(r.listing.changes ?? 0, 'change', 'changes')}.`
    : `The listing failed (${(r.listing.error ?? 'no reason given').replace(/\.$/, '')}): recorded as a gap.`
  return `${listing} ${plural(r.checked, 'address', 'addresses')} checked.`
}
