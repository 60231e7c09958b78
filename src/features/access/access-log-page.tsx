import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { SidewaysRegion } from '../../components/sideways-region'
import { useState, type SubmitEvent } from 'react'
import { accessLogExportUrl, accessLogQuery, accessLogVerifyQuery, type AccessLogEntry, type LogFilters } from '../../api/access'
import { ACTIONS, actionWords } from '../../../contract/vocabulary'
import { CustomerIconLink } from '../../components/customer-link'
import { PrintHeader } from '../../components/print-header'
import { formatCount } from '../../lib/count'
import { useSetParams } from '../../lib/navigation'
import type { AccessLogSearch } from '../../lib/route-params'
import { Problem, problemText } from './problem'

/**
 * The access log, for admins: who read what, when and from where. Filters live in the URL (a
 * filtered view can be shared and reloaded); pages are keyset-paged ("Show older entries"); the
 * export is a plain link to the server's CSV of the same filters. Actions are named and worded
 * by contract/vocabulary.ts, as the server records them and export files are named.
 */

const FILTERS = ['user', 'number', 'party', 'action', 'from', 'to'] as const

function filtersFrom(search: AccessLogSearch): LogFilters {
  const f: LogFilters = {}
  for (const k of FILTERS) {
    const v = search[k].trim()
    if (v) f[k] = v
  }
  return f
}

const FILTER_WORDS: Record<(typeof FILTERS)[number], string> = {
  user: 'user',
  number: 'number',
  party: 'party',
  action: 'action',
  from: 'from (UTC day)',
  to: 'to (UTC day, inclusive)',
}

/** What a printed sheet holds: the filters in words, and how many entries were loaded. */
function printedHolds(filters: LogFilters, loaded: number, more: boolean): string {
  const set = FILTERS.filter((k) => filters[k]).map((k) => `${FILTER_WORDS[k]} ${filters[k]}`)
  const which = set.length ? `Entries with ${set.join(', ')}` : 'Every entry'
  return `${which}, newest first: the ${formatCount(loaded)} loaded${more ? ' (older ones not shown)' : ''}.`
}

/** "2026-11-29 05:27:21 UTC": one line on screen; on paper the time may go under the day, never mid-part. */
function When({ iso }: { iso: string }) {
  const [day, time] = iso.replace(/\.\d{3}Z$/, '').split('T')
  return (
    <span className="whitespace-nowrap print:whitespace-normal">
      <span className="whitespace-nowrap">{day}</span> <span className="whitespace-nowrap">{time} UTC</span>
    </span>
  )
}

/** Digits, or a list of them (as a string with commas or an array): what the columns take (the server's listOf). */
const isList = (v: unknown) => typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))

/**
 * Whether a detail is shown in the Number or Party column (the server's numberOf and partyOf):
 * `number` and `party` as text; `numbers` as a list when there is no `number` (a count of
 * numbers is no number); `parties` as a list (joined with `party`).
 */
function inColumns(k: string, v: unknown, d: Record<string, unknown>): boolean {
  if (k === 'number' || k === 'party') return typeof v === 'string'
  if (k === 'numbers') return isList(v) && typeof d.number !== 'string'
  if (k === 'parties') return isList(v)
  return false
}

/**
 * A detail's value as text with a space after each comma, so a long list wraps in its cell.
 * Text inside a list or an object keeps its quotes: a search's words cannot read as other fields.
 */
function compact(v: unknown, nested = false): string {
  if (typeof v === 'string') return nested ? JSON.stringify(v) : v
  if (Array.isArray(v)) return `[${v.map((x) => compact(x, true)).join(', ')}]`
  if (v && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${compact(x, true)}`)
      .join(', ')}}`
  return String(v)
}

/** The entry's details minus what has its own column, as compact text. */
function detailsText(e: AccessLogEntry): string {
  const rest = Object.entries(e.details).filter(([k, v]) => !inColumns(k, v, e.details))
  return rest.map(([k, v]) => `${k}: ${compact(v)}`).join('; ')
}

/** How many of a read's numbers or customers the cell names before "and N more". */
const LISTED_SHOWN = 3

/**
 * A number or party column as recorded (the log's own words). One customer has the way to
 * everything about them. A read that showed many (a search page: every customer on it) is a
 * list of hundreds: it was one unbroken line of digits and commas, thousands of pixels wide,
 * that pushed Details off the screen and off the printed page. The first few are named, and the
 * whole list opens beneath them, wrapped.
 */
function Listed({ value, what }: { value: string | null; what: 'numbers' | 'customers' }) {
  if (!value) return null
  const items = value.split(',').filter(Boolean)
  if (items.length <= 1)
    return (
      <>
        {value}
        {what === 'customers' ? <CustomerIconLink party={value} /> : null}
      </>
    )
  if (items.length <= LISTED_SHOWN) return <span className="break-words">{items.join(', ')}</span>
  // Paper cannot open a disclosure: it gets the whole list.
  return (
    <>
      <details className="min-w-40 print:hidden">
        <summary className="cursor-pointer">
          {formatCount(items.length)} {what}: {items.slice(0, LISTED_SHOWN).join(', ')}…
        </summary>
        <p className="mt-1 text-xs break-words">{items.join(', ')}</p>
      </details>
      <p className="hidden text-xs break-words print:block">
        {formatCount(items.length)} {what}: {items.join(', ')}
      </p>
    </>
  )
}

/** The hash chain's verdict, in words: intact (entries N–M) or the first entry changed or removed. */
function ChainStatus() {
  const verdict = useQuery(accessLogVerifyQuery())
  if (verdict.isPending)
    return (
      <p role="status" className="mt-2 text-sm">
        Checking the log&apos;s hash chain…
      </p>
    )
  if (verdict.error) return <Problem title="Could not check the access log's hash chain" message={problemText(verdict.error)} />
  const v = verdict.data
  return v.intact ? (
    <p role="status" className="mt-2 text-sm text-green-800">
      <span aria-hidden="true">✓ </span>
      {v.message}
    </p>
  ) : (
    <p role="alert" className="mt-2 text-sm font-semibold text-red-800">
      <span aria-hidden="true">✗ </span>
      Log not intact: {v.message}
    </p>
  )
}

export function AccessLogPage({ search }: { search: AccessLogSearch }) {
  const filters = filtersFrom(search)
  const setParams = useSetParams('/admin/access-log')
  const log = useInfiniteQuery(accessLogQuery(filters))
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? []

  return (
    <section>
      <PrintHeader title="Access log" holds={printedHolds(filters, entries.length, log.hasNextPage)} zone="utc" />
      <h1 className="text-xl font-semibold">Access log</h1>
      <p className="mt-1 text-sm text-slate-700">
        Every sign-in, history and thread view, search, export, forget and user change: who, when, from where.
      </p>
      <ChainStatus />
      <FilterForm
        key={JSON.stringify(search)}
        initial={filters}
        onApply={(f) => setParams(Object.fromEntries(FILTERS.map((k) => [k, f[k] ?? null])))}
      />
      <div className="mt-3 flex flex-wrap items-center gap-3 print:hidden">
        <a className="btn" href={accessLogExportUrl(filters)} download>
          Export CSV
        </a>
        {Object.keys(filters).length ? (
          <button type="button" className="btn" onClick={() => setParams(Object.fromEntries(FILTERS.map((k) => [k, null])))}>
            Clear filters
          </button>
        ) : null}
      </div>
      {log.error ? <Problem title="Could not load the access log" message={problemText(log.error)} /> : null}
      {log.isPending ? <p role="status">Loading the access log…</p> : null}
      {log.data ? (
        // Wider than a phone: a region of its own scrolls sideways (Tab, then the arrow keys), so
        // the page does not; on paper it does not clip.
        <SidewaysRegion label="Access log entries (scrolls sideways)" className="mt-4">
          {/* Eight columns on a sheet: smaller type on paper, which cannot scroll sideways. */}
          <table className="w-full border-collapse text-sm print:text-xs">
            <caption className="sr-only">Access log entries, newest first</caption>
            <thead>
              <tr className="border-b border-slate-300 text-left">
                <th scope="col" className="py-2 pr-3">
                  When
                </th>
                <th scope="col" className="py-2 pr-3">
                  User
                </th>
                <th scope="col" className="py-2 pr-3">
                  Via
                </th>
                <th scope="col" className="py-2 pr-3">
                  Address
                </th>
                <th scope="col" className="py-2 pr-3">
                  Action
                </th>
                <th scope="col" className="py-2 pr-3">
                  Number
                </th>
                <th scope="col" className="py-2 pr-3">
                  Party
                </th>
                <th scope="col" className="py-2 pr-3">
                  Details
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} className="border-b border-slate-200 align-top">
                  <td className="py-1.5 pr-3">
                    <When iso={e.at} />
                  </td>
                  <td className="py-1.5 pr-3 break-words">{e.actor}</td>
                  <td className="py-1.5 pr-3">{e.via}</td>
                  <td className="py-1.5 pr-3 whitespace-nowrap">{e.address}</td>
                  <td className="py-1.5 pr-3">
                    {actionWords(e.action)}{' '}
                    <code className="text-xs whitespace-nowrap text-slate-700 print:whitespace-normal [&_wbr]:hidden print:[&_wbr]:inline">
                      {/* On paper it may wrap after a dot ("opt-outs." / "view"), not mid-word. */}
                      {e.action.split('.').map((part, i) => (i === 0 ? part : [<wbr key={i} />, `.${part}`]))}
                    </code>
                  </td>
                  <td className="py-1.5 pr-3">
                    <Listed value={e.number} what="numbers" />
                  </td>
                  <td className="py-1.5 pr-3">
                    <Listed value={e.party} what="customers" />
                  </td>
                  <td className="min-w-48 py-1.5 pr-3 break-words text-slate-700 print:min-w-0">{detailsText(e)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </SidewaysRegion>
      ) : null}
      {log.data && entries.length === 0 ? <p className="mt-3">No entries match these filters.</p> : null}
      {log.hasNextPage ? (
        <button type="button" className="btn mt-3 print:hidden" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          {log.isFetchingNextPage ? 'Loading older entries…' : 'Show older entries'}
        </button>
      ) : null}
    </section>
  )
}

function FilterForm({ initial, onApply }: { initial: LogFilters; onApply: (f: LogFilters) => void }) {
  const [f, setF] = useState<LogFilters>(initial)
  const set = (k: keyof LogFilters, v: string) => {
    setF((old) => ({ ...old, [k]: v }))
  }
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    const clean: LogFilters = {}
    for (const k of FILTERS) if (f[k]?.trim()) clean[k] = f[k].trim()
    onApply(clean)
  }
  const field = (k: 'user' | 'number' | 'party', label: string) => (
    <label className="flex flex-col gap-1 text-sm font-medium">
      {label}
      <input
        className="input"
        value={f[k] ?? ''}
        onChange={(e) => {
          set(k, e.target.value)
        }}
        maxLength={k === 'user' ? 320 : 64}
      />
    </label>
  )
  return (
    <form
      onSubmit={submit}
      aria-label="Filter the access log"
      className="mt-3 flex flex-wrap items-end gap-3 rounded border border-slate-200 p-3 print:hidden"
    >
      {field('user', 'User')}
      {field('number', 'Number')}
      {field('party', 'Party')}
      <label className="flex max-w-full min-w-0 flex-col gap-1 text-sm font-medium">
        Action
        <select
          className="input max-w-full"
          value={f.action ?? ''}
          onChange={(e) => {
            set('action', e.target.value)
          }}
        >
          <option value="">any</option>
          {ACTIONS.map((a) => (
            <option key={a} value={a}>
              {actionWords(a)} ({a})
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        From (UTC day)
        <input
          className="input"
          type="date"
          value={f.from ?? ''}
          onChange={(e) => {
            set('from', e.target.value)
          }}
        />
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        To (UTC day, inclusive)
        <input
          className="input"
          type="date"
          value={f.to ?? ''}
          onChange={(e) => {
            set('to', e.target.value)
          }}
        />
      </label>
      <button type="submit" className="btn-primary">
        Apply filters
      </button>
    </form>
  )
}
