import { useQuery } from '@tanstack/react-query'
import { segmentsQuery, type Segments } from '../../api/desk'
import { ErrorAlert } from '../../components/alert'
import { PrintHeader } from '../../components/print-header'
import { DAY_FIELDS, DroppedParams } from '../../components/dropped-params'
import { DayField } from '../../components/day-field'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { dayOrderProblem } from '../../lib/dates'
import { ExportButtons } from '../../components/export-buttons'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'
import { deskNumberSearch, type DeskNumberSearch } from '../../lib/route-params'
import { useSetParams } from '../../lib/navigation'
import { DeskIndexGate, DeskNav, NumberSelect, TableRegion, td, th } from './desk-parts'
import { codePointsName, shownCharacter } from '../../lib/code-points'

/** A character named so it can be read: the glyph, and its code point (a curly quote looks like a straight one). */
export const charName = codePointsName

/** Per number: how many SMS segments each day cost, and which characters forced the costlier UCS-2 encoding. */
export function SegmentsPage({ search, admin }: { search: DeskNumberSearch; admin: boolean | null }) {
  const setParams = useSetParams('/desk/segments')
  // A To before its From asks nothing: the To box says what is wrong.
  const rangeProblem = dayOrderProblem(search.from, search.to)
  return (
    <section aria-labelledby="segments-heading">
      <DeskNav current="segments" />
      <PrintHeader
        title="Encoding and segments"
        number={search.number || null}
        span={search.from || search.to ? `${search.from || 'the start'} to ${search.to || 'today'} (UTC days)` : null}
        zone={search.tz}
      />
      <h1 id="segments-heading" className="text-xl font-semibold">
        Encoding &amp; segments
      </h1>
      <p className="mt-1 text-sm text-slate-700">
        Carriers bill SMS by the segment: 160 GSM-7 characters (153 a part when split), but only 70 (67) once a single character outside
        GSM-7, such as a curly quote or an emoji, forces UCS-2 (3GPP TS 23.038).
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
      </div>
      <DroppedParams schema={deskNumberSearch} fields={DAY_FIELDS} />
      <DeskIndexGate admin={admin} what="segments report" number={search.number}>
        {rangeProblem ? (
          <EmptyState title="No day is in that range">{rangeProblem}</EmptyState>
        ) : search.number ? (
          <Report search={search} />
        ) : (
          <EmptyState title="Choose a number">Segments are counted per number: choose one of the indexed numbers.</EmptyState>
        )}
      </DeskIndexGate>
    </section>
  )
}

function Report({ search }: { search: DeskNumberSearch }) {
  const q = useQuery(segmentsQuery(search.number, search.from, search.to))
  if (q.isPending) return <TableSkeleton label="Loading segments" />
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="segments" />
  const d = q.data
  const messages = d.days.reduce((a, x) => a + x.messages, 0)
  const segments = d.days.reduce((a, x) => a + x.segments, 0)
  const extra = d.days.reduce((a, x) => a + x.extra, 0)
  if (messages === 0)
    return <EmptyState title="No messages in this span">{formatPhone(d.number)} has no indexed message on these days.</EmptyState>
  return (
    <>
      <p role="status" className="mt-3 font-semibold tabular-nums">
        {formatCount(messages)} messages, {formatCount(segments)} segments; {formatCount(extra)} of them only because of UCS-2
      </p>
      <Costliest d={d} />
      <Days d={d} />
    </>
  )
}

function Costliest({ d }: { d: Segments }) {
  // A character whose messages fit one segment either way cost nothing: it is counted, not listed.
  const costly = d.costliest.filter((c) => c.extraSegments > 0)
  // The server counts every such character, not only the 20 it lists.
  const free = d.freeCharacters
  return (
    <section aria-labelledby="costliest-heading" className="mt-4">
      <h2 id="costliest-heading" className="text-lg font-semibold">
        The characters that cost you most
      </h2>
      {free > 0 ? (
        <p className="text-sm text-slate-700">
          {formatCount(free)} other {free === 1 ? 'character' : 'characters'} forced UCS-2 without adding a segment (the messages were short
          enough either way).
        </p>
      ) : null}
      {d.forcingCharacters - free > costly.length ? (
        <p className="text-sm text-slate-700">
          The {formatCount(costly.length)} costliest of the {formatCount(d.forcingCharacters - free)} characters that added segments.
        </p>
      ) : null}
      {costly.length === 0 ? (
        <EmptyState title={d.costliest.length === 0 ? 'Every message fit GSM-7' : 'No character cost an extra segment'}>
          {d.costliest.length === 0
            ? 'No character forced UCS-2 on these days.'
            : 'Characters outside GSM-7 appeared only in messages short enough to take as many segments either way.'}
        </EmptyState>
      ) : (
        <TableRegion label="Costliest characters">
          <table className="w-full border-collapse text-sm">
            <caption className="sr-only">Costliest characters: what forced UCS-2 and the segments it added</caption>
            <thead className="bg-slate-50">
              <tr>
                <th scope="col" className={th}>
                  Character
                </th>
                <th scope="col" className={th}>
                  Messages it forced into UCS-2
                </th>
                <th scope="col" className={th}>
                  Extra segments it cost
                </th>
              </tr>
            </thead>
            <tbody>
              {costly.map((c) => (
                <tr key={c.char} className="border-t border-slate-200">
                  <td className={`${td} whitespace-nowrap`}>
                    <bdi className="mr-2 inline-block min-w-6 rounded border border-slate-300 px-1 text-center font-mono text-base">
                      {shownCharacter(c.char)}
                    </bdi>
                    <span className="font-mono text-xs text-slate-700">{charName(c.char)}</span>
                  </td>
                  <td className={`${td} tabular-nums`}>{formatCount(c.messages)}</td>
                  <td className={`${td} tabular-nums`}>{formatCount(Math.round(c.extraSegments * 10) / 10)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
    </section>
  )
}

function Days({ d }: { d: Segments }) {
  return (
    <section aria-labelledby="segment-days-heading" className="mt-4">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="segment-days-heading" className="text-lg font-semibold">
          Segments per day (UTC)
        </h2>
        <div className="ml-auto print:hidden">
          <ExportButtons
            nameParts={['segments', d.number]}
            getData={() => ({
              header: ['day', 'messages', 'segments', 'ucs2_messages', 'extra_segments_from_ucs2'],
              // In the table's order, newest first: the file holds what is on screen, as it is shown.
              rows: [...d.days].reverse().map((x) => [x.day, x.messages, x.segments, x.ucs2, x.extra]),
            })}
          />
        </div>
      </div>
      <TableRegion label="Segments per day">
        <table className="w-full border-collapse text-sm">
          <caption className="sr-only">Segments per day, newest first</caption>
          <thead className="bg-slate-50">
            <tr>
              <th scope="col" className={th}>
                Day
              </th>
              <th scope="col" className={th}>
                Messages
              </th>
              <th scope="col" className={th}>
                Segments
              </th>
              <th scope="col" className={th}>
                UCS-2 messages
              </th>
              <th scope="col" className={th}>
                Extra segments from UCS-2
              </th>
            </tr>
          </thead>
          <tbody>
            {[...d.days].reverse().map((x) => (
              <tr key={x.day} className="border-t border-slate-200">
                <td className={`${td} whitespace-nowrap`}>{x.day}</td>
                <td className={`${td} tabular-nums`}>{formatCount(x.messages)}</td>
                <td className={`${td} tabular-nums`}>{formatCount(x.segments)}</td>
                <td className={`${td} tabular-nums`}>{formatCount(x.ucs2)}</td>
                <td className={`${td} tabular-nums`}>{formatCount(x.extra)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
    </section>
  )
}
