import { useMemo, type ReactNode } from 'react'
import { SidewaysRegion } from '../../components/sideways-region'
import { usePhoneCards } from '../../components/data-table/layout'
import { deskKeys, type ReportExport } from '../../api/desk'
import { startExport } from '../../api/export-jobs'
import { useIndexStatus } from '../../api/index-api'
import { useUrlBound } from '../../lib/use-url-bound'
import { Link, useRouterState } from '@tanstack/react-router'
import { IndexGate } from '../../components/index-gate'
import { NumberCombobox } from '../../components/number-combobox'
import { useUnlistedWhy } from '../../components/use-unlisted-why'

export type DeskPage = 'needs-reply' | 'opt-outs' | 'customer' | 'quiet-hours' | 'segments'

const DESK_PAGES = [
  ['needs-reply', 'Needs reply', '/desk/needs-reply'],
  ['opt-outs', 'Opt-outs', '/desk/opt-outs'],
  ['customer', 'Customer', '/desk/customer'],
  ['quiet-hours', 'Quiet hours', '/desk/quiet-hours'],
  ['segments', 'Encoding & segments', '/desk/segments'],
] as const satisfies ReadonlyArray<readonly [DeskPage, string, string]>

/** The desk's own pages, one link each, the current one marked; the time zone picked goes along (every desk page has one). */
export function DeskNav({ current }: { current: DeskPage }) {
  const utc = useRouterState({ select: (s) => (s.location.search as Record<string, unknown>).tz === 'utc' })
  return (
    <nav aria-label="Support desk" className="mb-3 flex flex-wrap gap-x-4 gap-y-1 border-b border-slate-200 pb-2 text-sm print:hidden">
      {DESK_PAGES.map(([page, label, to]) => (
        <Link
          key={page}
          to={to}
          search={utc ? { tz: 'utc' as const } : {}}
          aria-current={page === current ? 'page' : undefined}
          className="text-slate-700 underline-offset-2 hover:underline aria-[current=page]:font-semibold"
        >
          {label}
        </Link>
      ))}
    </nav>
  )
}

/**
 * A table that scrolls sideways, when wider than the window, inside its own focusable region, so
 * the page itself never does and a keyboard user can scroll it (axe's scrollable-region-focusable).
 * It is the containing block of the visually hidden labels inside, which would otherwise escape its
 * clipping and widen the page. `label` names it, and the region's name adds that it scrolls
 * sideways, except for a stackTable (`stacked`) on a phone, which is cards there and does not scroll.
 */
export function TableRegion({ label, stacked = false, children }: { label: string; stacked?: boolean; children: ReactNode }) {
  // A stackTable is cards on a phone, and nothing scrolls there: the region's name does not say it does.
  const cards = usePhoneCards()
  return (
    <SidewaysRegion
      label={stacked && cards ? label : `${label} (scrolls sideways)`}
      className="mt-2 rounded border border-slate-200 bg-white"
    >
      {children}
    </SidewaysRegion>
  )
}

/**
 * A desk table that is a stack of cards on a phone (below 640 px): each row a card, each cell a
 * block led by its column's name (StackCell), so nothing sits off to the right past a sideways
 * scroll (a customer's opt-out and waiting columns sat 700 px over). Its rows and cells carry
 * their roles (StackRow, StackCell), so it stays a table to a screen reader when displayed as
 * blocks; the header row is hidden there, each cell saying its own column.
 */
export const stackTable =
  'w-full border-collapse text-sm max-sm:block max-sm:[&>thead]:hidden max-sm:[&>tbody]:block max-sm:[&>tbody>tr]:block max-sm:[&>tbody>tr]:py-1.5 max-sm:[&>tbody>tr>td]:block max-sm:[&>tbody>tr>td]:py-1 max-sm:[&>tbody>tr>td]:whitespace-normal'

export function StackRow({ children }: { children: ReactNode }) {
  return (
    <tr role="row" className="border-t border-slate-200">
      {children}
    </tr>
  )
}

/** A cell of a stackTable: on a phone, its column's name above its value. */
export function StackCell({
  label,
  className = '',
  title,
  children,
}: {
  label: string
  className?: string
  title?: string
  children: ReactNode
}) {
  return (
    <td role="cell" className={`${td} ${className}`} title={title}>
      <span className="block text-xs font-semibold text-slate-700 sm:hidden print:hidden">{label}</span>
      {children}
    </td>
  )
}

export const th = 'px-2 py-2 text-left align-bottom font-semibold whitespace-nowrap print:whitespace-normal'
export const td = 'px-2 py-1.5 align-top'
/** A cell kept on one line on screen (it scrolls sideways) that wraps on paper, which cannot scroll. */
export const oneLineOnScreen = 'whitespace-nowrap print:whitespace-normal'

/** The index's gate (components/index-gate) for a desk page: a number finishing its sync asks the desk's answers again. */
export function DeskIndexGate(props: { admin: boolean | null; what: string; number?: string; children: ReactNode }) {
  return <IndexGate {...props} refresh={deskKeys.all} />
}

/**
 * A number of the account, chosen from those the index knows; '' is every number when `allowAll`.
 * Type to filter (10,000 numbers on a large account): a pick commits once, so browsing the list
 * loads and logs nothing.
 */
export function NumberSelect({
  value,
  onChange,
  allowAll,
  label = 'Number',
}: {
  value: string
  /** The URL's number changed (a pick shows at once, useUrlBound). */
  onChange: (number: string) => unknown
  allowAll: boolean
  label?: string
}) {
  const [committed, pick] = useUrlBound(value, onChange)
  const index = useIndexStatus()
  const all = index.status?.numbers
  const numbers = useMemo(() => (all ?? []).filter((n) => n.indexed > 0 || n.number === value), [all, value])
  // A link's number the index does not know stays shown, and the picker says why it is not listed.
  const why = useUnlistedWhy(committed, numbers)
  return (
    <div className="text-sm">
      <NumberCombobox
        label={label}
        numbers={numbers}
        value={committed}
        onPick={pick}
        allLabel={allowAll ? 'All numbers' : undefined}
        placeholder={allowAll ? 'All numbers: type digits' : 'Choose a number: type digits'}
        note={why}
      />
    </div>
  )
}

/** The tid the thread page needs for a number, from the index's status (empty when unknown). */
export function useTidOf(): (number: string) => string {
  const index = useIndexStatus()
  return (number) => index.byNumber.get(number)?.tid ?? ''
}

export const NOT_LEGAL_ADVICE =
  'This is a record of what the messages say, worked out by rules that can be wrong; it is not legal advice. Check any case that matters with whoever advises you on messaging law.'

/**
 * "Export CSV" and "Export Excel (.xlsx)" for a report: the server streams all of it (the page
 * lists its first rows), and the export tray follows it: its place in line under the server's
 * export limits, rows written of how many, Cancel, and why it failed (a 429 says when to come
 * back). `label` names it in the tray; the server names the file. `ariaLabel` names the CSV
 * button ("Export CSV: …"); the Excel one is named the same way.
 */
export function ReportExportButton({
  report,
  label,
  total,
  ariaLabel,
}: {
  report: ReportExport
  label: string
  total: number | null
  ariaLabel?: string
}) {
  return (
    <div className="ml-auto flex flex-wrap gap-1 print:hidden">
      {(['csv', 'xlsx'] as const).map((format) => {
        const name = format === 'csv' ? 'Export CSV' : 'Export Excel (.xlsx)'
        return (
          <button
            key={format}
            type="button"
            className="btn"
            aria-label={ariaLabel?.replace(/^Export CSV/, name)}
            onClick={() =>
              startExport({ path: report.path, params: { ...report.params, format }, label, fileName: `${label}.${format}`, total })
            }
          >
            {name}
          </button>
        )
      })}
    </div>
  )
}
