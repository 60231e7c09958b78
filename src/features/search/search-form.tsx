import { useCallback, useId, useMemo, type ReactNode } from 'react'
import { FILTER_NAMES, SEARCH_PAGE_KEYS, type FilterName, type SearchPageKey } from '../../../contract/search-filters'
import type { NumberIndexStatus } from '../../api/index-api'
import { DayField } from '../../components/day-field'
import { dayOrderProblem, zoneLabel } from '../../lib/dates'
import type { SetParams } from '../../lib/navigation'
import type { SearchSearch } from '../../lib/route-params'
import { useUrlBound } from '../../lib/use-url-bound'
import { useDebouncedParam } from './use-debounced-param'
import { ZoneToggle } from '../../components/zone-toggle'
import { NumberCombobox } from '../../components/number-combobox'
import { formatPhone } from '../../lib/phone'

type Props = { search: SearchSearch; numbers: readonly NumberIndexStatus[]; setParams: SetParams<'/search'> }

/** The search's words and filters, every one of them in the URL. */
export function SearchForm({ search, numbers, setParams }: Props) {
  const commitQ = useCallback((v: string) => setParams({ q: v }, { replace: true }), [setParams])
  const [q, setQ] = useDebouncedParam(search.q, commitQ)
  return (
    <form
      role="search"
      aria-label="Message search"
      className="mt-2 flex flex-col gap-2 rounded border border-slate-200 bg-white p-3 print:hidden"
      onSubmit={(e) => {
        e.preventDefault()
      }}
    >
      <label className="flex flex-col text-sm">
        Search all messages (text in the message)
        <input
          type="search"
          className="input w-full max-w-xl"
          value={q}
          onChange={(e) => {
            setQ(e.target.value)
          }}
          placeholder="Words in the message"
          autoFocus
        />
      </label>
      <SearchFilters search={search} numbers={numbers} setParams={setParams} />
      <p className="text-xs text-slate-700">No numbers picked means all numbers. From and To are whole days in {zoneLabel(search.tz)}.</p>
    </form>
  )
}

/**
 * Each filter's control, keyed by the filters' table (contract/search-filters.ts), so a filter
 * added there does not compile until the page offers it; drawn in the table's order. The text
 * (`q`) is the search box above them.
 */
const FILTER_CONTROLS: Record<FilterName, ((p: Props) => ReactNode) | null> = {
  q: null,
  party: PartyFilter,
  direction: ({ search, setParams }) => (
    <Choice
      label="Direction"
      value={search.dir}
      options={{ inbound: 'Inbound', outbound: 'Outbound' }}
      onChange={(v) => setParams({ dir: v }, { replace: true })}
    />
  ),
  status: ({ search, setParams }) => (
    <Choice
      label="Status"
      value={search.status}
      options={{ success: 'Success', error: 'Error', other: 'Other' }}
      onChange={(v) => setParams({ status: v }, { replace: true })}
    />
  ),
  media: ({ search, setParams }) => (
    <Choice
      label="Media"
      value={search.media}
      options={{ yes: 'Has media', no: 'No media' }}
      onChange={(v) => setParams({ media: v }, { replace: true })}
    />
  ),
  dates: ({ search, setParams }) => (
    <>
      <DayField label="From (day)" value={search.from} onCommit={(v) => setParams({ from: v }, { replace: true })} />
      <DayField
        label="To (day, included)"
        value={search.to}
        onCommit={(v) => setParams({ to: v }, { replace: true })}
        problem={dayOrderProblem(search.from, search.to)}
      />
    </>
  ),
  numbers: NumbersFilter,
}

/** Every filter back to its default: each of the table's keys unset. */
const CLEARED = Object.fromEntries(SEARCH_PAGE_KEYS.map((k) => [k, null])) as Record<SearchPageKey, null>

function SearchFilters(props: Props) {
  const { search, setParams } = props
  return (
    <div className="flex flex-wrap items-end gap-3 text-sm">
      {FILTER_NAMES.map((n) => {
        const Control = FILTER_CONTROLS[n]
        return Control ? <Control key={n} {...props} /> : null
      })}
      <button type="button" className="btn" onClick={() => setParams(CLEARED, { replace: true })}>
        Clear all
      </button>
      <ZoneToggle zone={search.tz} onChange={(tz) => setParams({ tz }, { replace: true })} />
    </div>
  )
}

function PartyFilter({ search, setParams }: Props) {
  // Letters are not a phone number: the box says so and the filter stays as it was, never dropped.
  const commitParty = useCallback(
    (v: string) => (partyProblem(v) ? undefined : setParams({ party: v.replace(/\D/g, '') }, { replace: true })),
    [setParams],
  )
  const [party, setParty] = useDebouncedParam(search.party, commitParty)
  const problem = partyProblem(party)
  const partyNoteId = useId()
  return (
    <span className="flex flex-col">
      <label className="flex flex-col">
        Other party
        <input
          type="search"
          className="input w-44"
          inputMode="tel"
          value={party}
          onChange={(e) => {
            setParty(e.target.value)
          }}
          placeholder="Any formatting"
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? partyNoteId : undefined}
        />
      </label>
      {problem ? (
        <span id={partyNoteId} className="mt-0.5 max-w-48 text-xs text-red-800">
          {problem} {search.party ? `Still using ${search.party}.` : 'No party filter yet.'}
        </span>
      ) : null}
    </span>
  )
}

function NumbersFilter({ search, numbers, setParams }: Props) {
  const [picked, setPicked] = useUrlBound(search.numbers, (numbers: readonly string[]) =>
    setParams({ numbers: [...numbers] }, { replace: true }),
  )
  const unpicked = useMemo(() => numbers.filter((n) => !picked.includes(n.number)), [numbers, picked])
  return (
    <div className="flex flex-col gap-1">
      <NumberCombobox
        label="Numbers"
        numbers={unpicked}
        value=""
        placeholder="Add a number: type digits"
        onPick={(n) => {
          // A number brings its further lines (contract/lines.ts: the histories of second tids it is
          // listed under) with it, each a chip of its own that can be taken off.
          if (n) setPicked([...new Set([...picked, n, ...numbers.filter((x) => x.lineOf === n).map((x) => x.number)])])
        }}
      />
      {picked.length > 0 ? (
        <ul aria-label="Numbers picked" className="flex max-w-md flex-wrap gap-1">
          {picked.map((n) => (
            <li key={n}>
              <button
                type="button"
                className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 text-xs"
                aria-label={`Remove ${formatPhone(n)}`}
                onClick={() => {
                  setPicked(picked.filter((x) => x !== n))
                }}
              >
                {formatPhone(n)} <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}

/** What is wrong with an Other party box's text, or null (empty is no filter). */
export function partyProblem(text: string): string | null {
  const t = text.trim()
  if (!t) return null
  if (!/^[\d\s()+.\-/]+$/.test(t)) return 'Other party takes a phone number: digits, spaces and + ( ) . - / only.'
  return /\d/.test(t) ? null : 'Other party takes a phone number: type at least one digit.'
}

/** A labelled select whose first option, All, clears the filter; a pick shows at once (useUrlBound). */
function Choice<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string
  value: T | null
  options: Record<T, string>
  onChange: (v: T | null) => unknown
}) {
  const [shown, pick] = useUrlBound(value, onChange)
  return (
    <label className="flex flex-col">
      {label}
      <select
        className="input"
        value={shown ?? 'all'}
        onChange={(e) => {
          pick(e.target.value === 'all' ? null : (e.target.value as T))
        }}
      >
        <option value="all">All</option>
        {(Object.keys(options) as T[]).map((k) => (
          <option key={k} value={k}>
            {options[k]}
          </option>
        ))}
      </select>
    </label>
  )
}
