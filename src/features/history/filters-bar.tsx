import type { HistorySearch } from '../../lib/route-params'
import type { SetParams } from '../../lib/navigation'
import { useUrlBound } from '../../lib/use-url-bound'
import { filtersActive, type MessageFilters } from './filters'

/** Filters over the loaded page (the upstream has no server-side filtering). */
export function FiltersBar({
  filters,
  setParams,
  shown,
  loaded,
}: {
  filters: MessageFilters
  setParams: SetParams<'/numbers/$number'>
  shown: number
  loaded: number
}) {
  const [media, setMedia] = useUrlBound(filters.media, (on) => setParams({ media: on ? '1' : null }, { replace: true }))
  return (
    <fieldset className="flex flex-wrap items-end gap-3 rounded border border-slate-200 bg-white p-2 print:hidden">
      <legend className="px-1 text-sm font-semibold">Filter the loaded page</legend>
      <FilterSelect
        label="Direction"
        value={filters.direction}
        options={['outbound', 'inbound']}
        names={{ outbound: 'Outbound', inbound: 'Inbound' }}
        onChange={(v) => setParams({ dir: v }, { replace: true })}
      />
      <FilterSelect
        label="Status"
        value={filters.status}
        options={['Success', 'Error', 'Unknown']}
        onChange={(v) => setParams({ status: v }, { replace: true })}
      />
      <label className="flex items-center gap-1 text-sm">
        <input
          type="checkbox"
          checked={media}
          onChange={(e) => {
            setMedia(e.target.checked)
          }}
        />
        Has media
      </label>
      <label className="flex flex-col text-sm">
        Search messages
        <input
          type="search"
          className="input w-60"
          value={filters.q}
          placeholder="Text or phone"
          onChange={(e) => setParams({ mq: e.target.value || null }, { replace: true })}
        />
      </label>
      <p role="status" className="text-sm text-slate-700">
        {filtersActive(filters)
          ? `${shown} of ${loaded} loaded messages match. Filters apply to this page only.`
          : `Filters apply to the ${loaded} messages on this page only.`}
      </p>
    </fieldset>
  )
}

/** The route's parsed filter values as the filter functions take them. */
export function filtersOf(s: HistorySearch): MessageFilters {
  return { direction: s.dir ?? 'all', status: s.status ?? 'all', media: s.media === '1', q: s.mq }
}

/** A labelled select whose first option, All, clears the filter (null in the URL); a pick shows at once (useUrlBound). */
function FilterSelect<T extends string>({
  label,
  value,
  options,
  names = {},
  onChange,
}: {
  label: string
  value: string
  options: readonly T[]
  names?: Partial<Record<T, string>>
  onChange: (v: T | null) => unknown
}) {
  const [shown, pick] = useUrlBound(value, (v: string) => onChange(options.find((o) => o === v) ?? null))
  return (
    <label className="flex flex-col text-sm">
      {label}
      <select
        className="input"
        value={shown}
        onChange={(e) => {
          pick(e.target.value)
        }}
      >
        <option value="all">All</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {names[o] ?? o}
          </option>
        ))}
      </select>
    </label>
  )
}
