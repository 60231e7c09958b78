import { useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { quietHoursExport, quietHoursQuery, type QuietHours } from '../../api/desk'
import { ErrorAlert } from '../../components/alert'
import { PrintHeader } from '../../components/print-header'
import { DAY_FIELDS, DroppedParams } from '../../components/dropped-params'
import { CustomerLink } from '../../components/customer-link'
import { DayField } from '../../components/day-field'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { BodyText } from '../../components/message/message-parts'
import { UPlotChart } from '../../components/uplot-chart'
import { formatCount } from '../../lib/count'
import { dayOrderProblem, exactUtc, formatDate, type Zone } from '../../lib/dates'
import { formatPhone } from '../../lib/phone'
import { deskNumberSearch, type DeskNumberSearch } from '../../lib/route-params'
import { Link } from '@tanstack/react-router'
import { useSetParams } from '../../lib/navigation'
import { DeskIndexGate, DeskNav, NumberSelect, oneLineOnScreen, ReportExportButton, TableRegion, td, th } from './desk-parts'
import { msOf, quietDayRows, quietDaySeries } from './format'
import { localTime } from '../../../contract/desk/quiet-hours'
import { ZoneToggle } from '../../components/zone-toggle'

/** Sends to North American customers outside 8:00–21:00 in the customer's own time, per number and day. */
export function QuietHoursPage({ search, admin }: { search: DeskNumberSearch; admin: boolean | null }) {
  const setParams = useSetParams('/desk/quiet-hours')
  // A To before its From asks nothing: the To box says what is wrong.
  const rangeProblem = dayOrderProblem(search.from, search.to)
  return (
    <section aria-labelledby="quiet-heading">
      <DeskNav current="quiet-hours" />
      <PrintHeader
        title="Quiet hours"
        number={search.number || null}
        span={search.from || search.to ? `${search.from || 'the start'} to ${search.to || 'today'} (UTC days)` : null}
        zone={search.tz}
      />
      <h1 id="quiet-heading" className="text-xl font-semibold">
        Quiet hours
      </h1>
      <p className="mt-1 text-sm text-slate-700">
        Messages a number sent to North American customers before 8:00 or from 21:00 in the customer’s local time, which is taken from their
        area code.
      </p>
      <p className="mt-1 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
        <strong>The zone is approximate.</strong> People keep their number when they move (number portability) and travel with it, so an
        area code may not be where its owner is. Numbers outside North America, toll-free numbers and unknown area codes are not judged.
        This is not legal advice.
      </p>
      <div className="mt-3 flex flex-wrap items-end gap-3 print:hidden">
        <NumberSelect value={search.number} allowAll={false} onChange={(n) => setParams({ number: n || null }, { replace: true })} />
        <DayField
          className="flex flex-col text-sm"
          label="From (day, UTC)"
          value={search.from}
          onCommit={(v) => setParams({ from: v }, { replace: true })}
        />
        <DayField
          className="flex flex-col text-sm"
          label="To (day, UTC, included)"
          value={search.to}
          onCommit={(v) => setParams({ to: v }, { replace: true })}
          problem={rangeProblem}
        />
        <ZoneToggle zone={search.tz} onChange={(tz) => setParams({ tz }, { replace: true })} />
      </div>
      <DroppedParams schema={deskNumberSearch} fields={DAY_FIELDS} />
      <DeskIndexGate admin={admin} what="quiet-hours report" number={search.number}>
        {rangeProblem ? (
          <EmptyState title="No day is in that range">{rangeProblem}</EmptyState>
        ) : search.number ? (
          <Report search={search} />
        ) : (
          <EmptyState title="Choose a number">Quiet hours are counted per number: choose one of the indexed numbers.</EmptyState>
        )}
      </DeskIndexGate>
    </section>
  )
}

function Report({ search }: { search: DeskNumberSearch }) {
  const q = useQuery(quietHoursQuery(search.number, search.from, search.to))
  if (q.isPending) return <TableSkeleton label="Loading quiet-hour sends" />
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="quiet-hour sends" />
  const d = q.data
  return (
    <>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <p role="status" className="font-semibold tabular-nums">
          {formatCount(d.quiet)} of {formatCount(d.outbound)} sends from {formatPhone(d.number)} were in quiet hours
          {d.unknownZone ? ` (${formatCount(d.unknownZone)} could not be placed in a zone)` : ''}
        </p>
        {d.quiet > 0 ? (
          // From the server: every quiet-hour send in the range, not only the rows listed below.
          <ReportExportButton
            report={quietHoursExport(d.number, search.from, search.to, search.tz)}
            label={`Quiet hours of ${formatPhone(d.number)}`}
            total={d.quiet}
          />
        ) : null}
      </div>
      {d.quiet === 0 ? (
        <EmptyState title={d.outbound === 0 ? 'This number sent nothing in this span' : 'No send was in quiet hours'}>
          {d.outbound === 0
            ? 'Only messages the number sent are judged.'
            : `All ${formatCount(d.outbound - d.unknownZone)} sends that could be placed went out between 8:00 and 21:00 for the customer.`}
        </EmptyState>
      ) : (
        <>
          <DayTable d={d} />
          <Sends d={d} zone={search.tz} />
        </>
      )}
    </>
  )
}

/** The day chart, with its figures as a table below it: each customer-local day with its quiet sends. */
function DayTable({ d }: { d: QuietHours }) {
  const max = Math.max(1, ...d.days.map((x) => x.quiet))
  const chart = useMemo(() => quietDaySeries(d.days), [d.days])
  // The chart's days, the empty ones included: the same figures in a table.
  const rows = useMemo(() => quietDayRows(chart), [chart])
  const bars = useMemo(() => [{ label: 'Sends in quiet hours', values: chart.quiet, color: 'var(--color-amber-700)', bars: true }], [chart])
  return (
    <section aria-labelledby="quiet-days-heading" className="mt-4">
      <h2 id="quiet-days-heading" className="text-lg font-semibold">
        Quiet-hour sends by day (the customer’s local day)
      </h2>
      <p className="text-sm text-slate-700">
        From and To choose sends by their UTC day; each is counted here on the customer’s own day, so the first and last days can fall
        outside From and To, and hold only some of their sends.
      </p>
      <div className="mt-2 rounded border border-slate-200 bg-white p-3">
        <UPlotChart
          label={`Bar chart of quiet-hour sends per customer-local day from ${formatPhone(d.number)}, ${chart.x.length} ${chart.x.length === 1 ? 'day' : 'days'}`}
          x={chart.x}
          series={bars}
          yLabel="Sends"
          fromZero
        />
      </div>
      <TableRegion label="Quiet-hour sends by day">
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">Quiet-hour sends by day, the customer’s local day</caption>
          <thead className="bg-slate-50">
            <tr>
              <th scope="col" className={th}>
                Day
              </th>
              <th scope="col" className={th}>
                Sends in quiet hours
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((x) => (
              <tr key={x.day} className="border-t border-slate-200">
                <td className={`${td} whitespace-nowrap`}>{x.day}</td>
                <td className={`${td} w-full`}>
                  <span className="flex items-center gap-2">
                    <span className="w-10 text-right tabular-nums">{formatCount(x.quiet)}</span>
                    <span
                      aria-hidden="true"
                      className="inline-block h-3 rounded bg-amber-500"
                      style={{ width: `${(x.quiet / max) * 70}%` }}
                    />
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
    </section>
  )
}

const theirFormats = new Map<string, Intl.DateTimeFormat>()

/** "Nov 19, 9:30 PM EST": the send's day and time in the customer's zone (from their area code, as the server judged it); — when it cannot be told. */
function theirTime(party: string, date: string | null): string {
  const local = date ? localTime(party, date) : null
  if (!local || !date) return '—'
  let f = theirFormats.get(local.zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: local.zone,
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
    })
    theirFormats.set(local.zone, f)
  }
  // Intl's narrow no-break space before AM/PM, as a plain space: the cell is nowrap anyway.
  return f.format(Date.parse(date)).replace(/\u202f/g, ' ')
}

function Sends({ d, zone }: { d: QuietHours; zone: Zone }) {
  return (
    <section aria-labelledby="quiet-sends-heading" className="mt-4">
      <h2 id="quiet-sends-heading" className="text-lg font-semibold">
        The sends, newest first
      </h2>
      <TableRegion label="Quiet-hour sends">
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">Quiet-hour sends, newest first</caption>
          <thead className="bg-slate-50">
            <tr>
              <th scope="col" className={th}>
                Sent
              </th>
              <th scope="col" className={th}>
                Their local time
              </th>
              <th scope="col" className={th}>
                Customer
              </th>
              <th scope="col" className={th}>
                Text
              </th>
            </tr>
          </thead>
          <tbody>
            {d.rows.map((r) => (
              <tr key={r.ordinal} className="border-t border-slate-200">
                <td className={`${td} ${oneLineOnScreen}`} title={exactUtc(msOf(r.date))}>
                  <Link
                    to="/numbers/$number/messages/$ordinal"
                    params={{ number: d.number, ordinal: r.ordinal }}
                    search={{ tz: zone }}
                    className="text-blue-800 underline"
                  >
                    {formatDate(msOf(r.date), zone)}
                  </Link>
                </td>
                {/* Why it counts: the hour where the customer is (their area code's zone), beside the page's own time. */}
                <td className={`${td} ${oneLineOnScreen}`}>{theirTime(r.party, r.date)}</td>
                <td className={`${td} whitespace-nowrap`}>
                  <CustomerLink party={r.party} />
                </td>
                <td className={`${td} min-w-48`}>
                  <BodyText body={r.body} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
      {d.quiet > d.rows.length ? (
        <p className="mt-2 text-sm text-slate-700">
          The {formatCount(d.rows.length)} newest of {formatCount(d.quiet)} are listed; narrow the days to see older ones, or export them
          all (Export CSV).
        </p>
      ) : null}
    </section>
  )
}
