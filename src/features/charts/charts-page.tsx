import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { PrintHeader } from '../../components/print-header'
import { useCallback, useMemo } from 'react'
import { indexKeys, statsQuery, useIndexStatus, type NumberIndexStatus, type StatsResult } from '../../api/index-api'
import { ErrorAlert } from '../../components/alert'
import { IndexGate } from '../../components/index-gate'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { formatCount } from '../../lib/count'
import { zoneLabel, zoneName, type Zone } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import type { ChartsSearch, SearchInput, SearchSearch } from '../../lib/route-params'
import { Link, useNavigate } from '@tanstack/react-router'
import { useSetParams } from '../../lib/navigation'
import { useUrlBound } from '../../lib/use-url-bound'
import { RANGES, rangeSpan, toSeries, type Series } from './series'
import { UPlotChart } from '../../components/uplot-chart'
import { NumberCombobox } from '../../components/number-combobox'

const NO_NUMBERS: readonly NumberIndexStatus[] = []
/** The chart figures' queries, asked again as each number finishes indexing. */
const STATS_KEY = [...indexKeys.all, 'stats'] as const

/** The number and the range, both in the URL; a pick shows at once (useUrlBound), before the charts under it redraw. */
function ChartFilters({ search, numbers }: { search: ChartsSearch; numbers: readonly NumberIndexStatus[] }) {
  const setParams = useSetParams('/charts')
  const [number, setNumber] = useUrlBound(search.number, (n: string) => setParams({ number: n || null }, { replace: true }))
  const [range, setRange] = useUrlBound(search.range, (r: ChartsSearch['range']) =>
    setParams({ range: r === '90d' ? null : r }, { replace: true }),
  )
  return (
    <div className="mt-2 flex flex-wrap items-end gap-4 print:hidden">
      <div className="text-sm">
        <NumberCombobox
          label="Number"
          numbers={numbers}
          value={number}
          allLabel="All numbers (account-wide)"
          onPick={setNumber}
          className="w-64"
        />
      </div>
      <fieldset className="flex flex-wrap items-center gap-2 text-sm">
        <legend className="mb-1">Range</legend>
        {RANGES.map((r) => (
          <label key={r.id} className="flex items-center gap-1">
            <input
              type="radio"
              name="range"
              value={r.id}
              checked={range === r.id}
              onChange={() => {
                setRange(r.id)
              }}
            />
            {r.label}
          </label>
        ))}
      </fieldset>
    </div>
  )
}

/**
 * Messages per day (in and out) and the failure rate, per number or account-wide, over the
 * indexed history, counted in days (and weeks) of the shown zone, the zone Search uses, so a day
 * opened from here finds the messages counted. Each chart has a table of the same figures.
 */
export function ChartsPage({ search, admin }: { search: ChartsSearch; admin: boolean | null }) {
  const navigate = useNavigate()
  const index = useIndexStatus()
  const zone = search.tz
  const span = useMemo(() => rangeSpan(search.range, zone), [search.range, zone])
  const number = search.number || null
  const stats = useQuery({
    ...statsQuery(number, span.bucket, span.from, span.to, zoneName(zone)),
    enabled: index.available,
    placeholderData: keepPreviousData,
  })
  const series = useMemo(() => (stats.data ? toSeries(stats.data, span) : null), [stats.data, span])
  const who = number ? formatPhone(number) : 'all numbers'
  const unit = span.bucket === 'day' ? 'day' : 'week'
  const volume = useMemo(
    () =>
      series
        ? [
            { label: 'Inbound', values: series.inbound, color: 'var(--color-blue-700)' },
            { label: 'Outbound', values: series.outbound, color: 'var(--color-amber-700)', dash: [6, 4] },
          ]
        : [],
    [series],
  )
  const dayLink = useCallback(
    (i: number, failedOnly: boolean) => (series ? daySearch(series, i, span.bucket, number, failedOnly, zone) : null),
    [series, span.bucket, number, zone],
  )
  const openVolumeDay = useCallback(
    (i: number) => {
      const search = dayLink(i, false)
      if (search) void navigate({ to: '/search', search })
    },
    [dayLink, navigate],
  )
  const openFailedDay = useCallback(
    (i: number) => {
      const search = dayLink(i, true)
      if (search) void navigate({ to: '/search', search })
    },
    [dayLink, navigate],
  )
  const failure = useMemo(
    () => (series ? [{ label: 'Failure rate (%)', values: series.failureRate, color: 'var(--color-red-700)' }] : []),
    [series],
  )

  return (
    <section aria-labelledby="charts-heading">
      <PrintHeader
        title={`Charts: ${who}`}
        number={search.number || null}
        holds={`${span.from ? `${span.from} to ${span.to}` : 'The whole indexed history'}, per ${unit}, over the indexed history only`}
        zone={zone}
      />
      <h1 id="charts-heading" className="text-xl font-semibold">
        Charts: {who}
      </h1>
      <ChartFilters search={search} numbers={index.status?.numbers ?? NO_NUMBERS} />
      <p className="mt-1 text-sm text-slate-700">
        Days are {zoneDays(zone)}
        {span.from ? `, ${span.from} to ${span.to}` : ', the whole indexed history'}, per {unit}
        {unit === 'week' ? ' (weeks from Monday)' : ''}: a day opened from here is searched in the same zone, so its messages are the ones
        counted. Over the indexed history only. Click a point, or a day in the table, to see its messages.
      </p>

      <IndexGate admin={admin} what="chart" number={search.number} refresh={STATS_KEY}>
        {stats.data && !stats.isError ? (
          <PartialNotice
            freshness={stats.data.freshness}
            short={notWhole(index.status?.numbers ?? NO_NUMBERS, number)}
            unlisted={number === null && index.status?.accountListed === false}
          />
        ) : null}
        {stats.isError ? (
          <ErrorAlert error={stats.error} onRetry={() => void stats.refetch()} retrying={stats.isFetching} where="the chart figures" />
        ) : !series ? (
          <TableSkeleton label="Loading the chart figures" />
        ) : series.days.length === 0 ? (
          <EmptyState title="No indexed messages in this range" />
        ) : (
          <div className="mt-3 grid grid-cols-1 gap-6">
            <section aria-labelledby="volume-heading" className="rounded border border-slate-200 bg-white p-3">
              <h2 id="volume-heading" className="font-semibold">
                Messages per {unit}, in and out
              </h2>
              <UPlotChart
                label={`Line chart of inbound and outbound messages per ${unit} for ${who}`}
                x={series.x}
                series={volume}
                yLabel="Messages"
                onPick={openVolumeDay}
              />
            </section>
            <section aria-labelledby="failure-heading" className="rounded border border-slate-200 bg-white p-3">
              <h2 id="failure-heading" className="font-semibold">
                Failure rate per {unit}
              </h2>
              <UPlotChart
                label={`Line chart of the failure rate per ${unit} for ${who}`}
                x={series.x}
                series={failure}
                yLabel="Failed (%)"
                fromZero
                onPick={openFailedDay}
              />
            </section>
            <FiguresTable series={series} unit={unit} who={who} link={dayLink} />
          </div>
        )}
      </IndexGate>
    </section>
  )
}

/** "UTC days", or "Europe/Paris days (local time)": the zone the buckets were counted in. */
function zoneDays(zone: Zone): string {
  if (zone === 'utc') return 'UTC days'
  const name = zoneLabel(zone) === 'Local time' ? '' : zoneName(zone)
  // A browser whose zone is UTC: "UTC days (local time)" read as a contradiction.
  if (name === 'UTC' || name === 'Etc/UTC') return 'UTC days (this browser’s local time is UTC)'
  return name ? `${name} days (local time)` : 'local days'
}

/**
 * The Search page's query for the messages of one bucket (a day, or the week from that day, of the shown zone),
 * in that zone as the bucket was counted; failed ones only for the failure chart.
 */
export function daySearch(
  series: Series,
  i: number,
  bucket: 'day' | 'week',
  number: string | null,
  failedOnly: boolean,
  zone: Zone,
): SearchInput<SearchSearch> | null {
  const from = series.days[i]
  if (!from) return null
  const to = bucket === 'day' ? from : new Date(Date.parse(`${from}T00:00:00Z`) + 6 * 86_400_000).toISOString().slice(0, 10)
  return { from, to, tz: zone, numbers: number ? [number] : null, status: failedOnly ? 'error' : null }
}

/** A column's title, shortened on a phone so the figures fit its width; a screen reader hears the full one. */
function Narrow({ full, short }: { full: string; short: string }) {
  return (
    <>
      <span aria-hidden="true" className="sm:hidden print:hidden">
        {short}
      </span>
      <span className="max-sm:sr-only print:not-sr-only">{full}</span>
    </>
  )
}

function FiguresTable({
  series,
  unit,
  who,
  link,
}: {
  series: Series
  unit: string
  who: string
  link: (i: number, failedOnly: boolean) => SearchInput<SearchSearch> | null
}) {
  const totals = series.inbound.reduce(
    (a, v, i) => ({ i: a.i + v, o: a.o + (series.outbound[i] ?? 0), f: a.f + (series.failed[i] ?? 0) }),
    { i: 0, o: 0, f: 0 },
  )
  return (
    <section aria-labelledby="figures-heading">
      <h2 id="figures-heading" className="font-semibold">
        The figures
      </h2>
      <div
        className="mt-1 max-h-96 overflow-auto rounded border border-slate-200 bg-white print:max-h-none print:overflow-visible"
        tabIndex={0}
        role="region"
        aria-label="Chart figures, scrollable"
      >
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">
            Messages per {unit} and failure rate for {who}
          </caption>
          <thead className="sticky top-0 bg-slate-100">
            <tr>
              <th scope="col" className="px-1.5 py-1 sm:px-2 text-left">
                {unit === 'day' ? 'Day' : 'Week from'}
              </th>
              <th scope="col" className="px-1.5 py-1 sm:px-2 text-right">
                <Narrow full="Inbound" short="In" />
              </th>
              <th scope="col" className="px-1.5 py-1 sm:px-2 text-right">
                <Narrow full="Outbound" short="Out" />
              </th>
              <th scope="col" className="px-1.5 py-1 sm:px-2 text-right">
                Failed
              </th>
              <th scope="col" className="px-1.5 py-1 sm:px-2 text-right">
                <Narrow full="Failure rate" short="Rate" />
              </th>
            </tr>
          </thead>
          <tbody>
            {series.days.map((d, i) => (
              <tr key={d} className="border-t border-slate-200">
                <th scope="row" className="px-1.5 py-1 text-left font-normal whitespace-nowrap tabular-nums sm:px-2">
                  <Link
                    to="/search"
                    search={link(i, false) ?? {}}
                    className="text-blue-800 underline"
                    aria-label={`${d}: open its messages`}
                  >
                    {d}
                  </Link>
                </th>
                <td className="px-1.5 py-1 sm:px-2 text-right tabular-nums">{formatCount(series.inbound[i] ?? 0)}</td>
                <td className="px-1.5 py-1 sm:px-2 text-right tabular-nums">{formatCount(series.outbound[i] ?? 0)}</td>
                <td className="px-1.5 py-1 sm:px-2 text-right tabular-nums">
                  {series.failed[i] ? (
                    <Link
                      to="/search"
                      search={link(i, true) ?? {}}
                      className="text-blue-800 underline"
                      aria-label={`${formatCount(series.failed[i] ?? 0)} failed on ${d}: open them`}
                    >
                      {formatCount(series.failed[i] ?? 0)}
                    </Link>
                  ) : (
                    formatCount(series.failed[i] ?? 0)
                  )}
                </td>
                <td className="px-1.5 py-1 sm:px-2 text-right tabular-nums">
                  {series.failureRate[i] === null ? '—' : `${series.failureRate[i]}%`}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr className="border-t-2 border-slate-300 font-semibold">
              <th scope="row" className="px-1.5 py-1 sm:px-2 text-left">
                Total
              </th>
              <td className="px-1.5 py-1 sm:px-2 text-right tabular-nums">{formatCount(totals.i)}</td>
              <td className="px-1.5 py-1 sm:px-2 text-right tabular-nums">{formatCount(totals.o)}</td>
              <td className="px-1.5 py-1 sm:px-2 text-right tabular-nums">{formatCount(totals.f)}</td>
              <td className="px-1.5 py-1 sm:px-2 text-right tabular-nums">
                {totals.i + totals.o > 0 ? `${Math.round((totals.f / (totals.i + totals.o)) * 1000) / 10}%` : '—'}
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
    </section>
  )
}

/**
 * Figures over part of the account say so: numbers not fully indexed count short, and before the
 * account is listed an account-wide chart holds only the numbers someone opened (it read as the
 * whole account's).
 */
export function PartialNotice({ freshness, short, unlisted }: { freshness: StatsResult['freshness']; short: number; unlisted: boolean }) {
  if (!unlisted && short === 0) return null
  const numbers = (n: number) => `${formatCount(n)} ${n === 1 ? 'number' : 'numbers'}`
  return (
    <p role="status" className="mt-2 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
      {unlisted
        ? `Only the ${numbers(freshness.numbersKnown)} someone opened ${freshness.numbersKnown === 1 ? 'is' : 'are'} indexed, not the whole account: these figures are theirs alone (Index all numbers, on the Index page, takes in the rest).`
        : `${numbers(short)} ${short === 1 ? 'is' : 'are'} not fully indexed: ${short === 1 ? 'its' : 'their'} figures may be short.`}
    </p>
  )
}

/**
 * The numbers in the chart (one, or every one) whose history the index does not hold whole: a
 * sync waiting, running, or stopped short. Not those that left the account or that an admin forgot:
 * their figures are what they are, and counting them kept the notice up for good.
 */
export function notWhole(numbers: readonly NumberIndexStatus[], only: string | null): number {
  return numbers.filter(
    (n) =>
      (only === null || n.number === only) &&
      !n.removed &&
      n.forgottenAt === null &&
      (['syncing', 'queued', 'error', 'paused', 'never'].includes(n.state) || n.upstreamTotal === null || n.indexed < n.upstreamTotal),
  ).length
}
