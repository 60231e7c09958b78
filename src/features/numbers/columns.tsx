import { createColumnHelper } from '@tanstack/react-table'
import { historyPath } from '../../lib/paths'
import { Link } from '../../lib/router'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'
import type { Features, SortValue } from '../../components/data-table/features'
import type { OwnedNumber } from '../../api/numbers'
import { auditLabel, findingsOf, SEVERITY_LABEL, severityOf, type AuditKey } from './audit'

const helper = createColumnHelper<Features, OwnedNumber>()

const text = (v: string | null) => (v === null || v === '' ? <span className="text-slate-600">—</span> : v)

const numberCol = helper.accessor('number', {
  id: 'number',
  header: 'Number',
  enableHiding: false,
  meta: { card: 'title' },
  cell: ({ row }) => (
    <>
      <Link
        href={historyPath(row.original.number, row.original.tid)}
        className="block w-fit font-medium text-blue-800 underline-offset-2 hover:underline"
      >
        {formatPhone(row.original.number)}
      </Link>
      <span className="block font-mono text-xs text-slate-600 select-all">{row.original.number}</span>
    </>
  ),
})
const typeCol = helper.accessor((r) => r.type ?? '', {
  id: 'type',
  header: 'Type',
  meta: { card: 'meta' },
  cell: ({ row }) => (row.original.type === 'tollfree' ? 'Toll-free' : row.original.type === 'local' ? 'Local' : text(row.original.type)),
})
const countryCol = helper.accessor((r) => r.country ?? '', {
  id: 'country',
  header: 'Country',
  meta: { card: 'meta' },
  cell: ({ row }) => text(row.original.country),
})
const tidCol = helper.accessor('tid', { id: 'tid', header: 'tid', meta: { card: 'field' }, cell: ({ row }) => row.original.tid })
const urlCell = (v: string | null) => (v ? v : <span className="font-sans text-slate-600">—</span>)
const webhookCol = helper.accessor((r) => r.webhook ?? '', {
  id: 'webhook',
  header: 'Webhook',
  meta: { card: 'body', minWidth: '12rem' },
  cell: ({ row }) => urlCell(row.original.webhook),
})
const dlrCol = helper.accessor((r) => r.dlr ?? '', {
  id: 'dlr',
  header: 'DLR',
  meta: { card: 'body', minWidth: '12rem' },
  cell: ({ row }) => urlCell(row.original.dlr),
})
/**
 * What the message index holds per number, for the "Messages" and "Last activity" columns. Cells
 * are plain functions (no hooks), so the page hands the index status over with applyIndexFacts
 * when it changes, as the audit does with its findings, and passes a new rows array.
 */
const INDEX_FACTS = new Map<string, { indexed: number; newest: string | null }>()
export function applyIndexFacts(numbers: ReadonlyArray<{ number: string; indexed: number; newestDate: string | null }> | undefined): void {
  INDEX_FACTS.clear()
  for (const n of numbers ?? []) INDEX_FACTS.set(n.number, { indexed: n.indexed, newest: n.newestDate })
}
const factsOf = (r: OwnedNumber) => INDEX_FACTS.get(r.number.replace(/^\+/, ''))
const messagesCol = helper.accessor((r) => factsOf(r)?.indexed ?? -1, {
  id: 'messages',
  header: 'Messages',
  meta: { card: 'meta', cardLabel: 'Messages indexed' },
  cell: ({ row }) => {
    const f = factsOf(row.original)
    return f ? formatCount(f.indexed) : <span className="text-slate-600">—</span>
  },
})
/** The newest indexed message's day (UTC, from its ISO date: no Intl on the numbers page's first render). */
const lastActivity = (r: OwnedNumber) => factsOf(r)?.newest?.slice(0, 10) ?? ''
const activityCol = helper.accessor(lastActivity, {
  id: 'activity',
  header: 'Last activity (UTC)',
  meta: { card: 'meta', cardLabel: 'Last activity (UTC)' },
  cell: ({ row }) => lastActivity(row.original) || <span className="text-slate-600">—</span>,
})
const auditCol = helper.accessor((r) => findingsOf(r)?.length ?? -1, {
  id: 'audit',
  header: 'Audit',
  meta: { card: 'body' },
  cell: ({ row }) => <AuditCell findings={findingsOf(row.original)} />,
})

/** Severity in words on every chip ("Problem", "Worth a look"); colour and the border style only repeat it. */
const SEVERITY_CHIP = {
  problem: 'border-red-700 bg-red-50 text-red-900',
  look: 'border-dashed border-amber-700 bg-amber-50 text-amber-950',
} as const

function AuditCell({ findings }: { findings: ReturnType<typeof findingsOf> }) {
  if (!findings) return <span className="text-xs text-slate-700">Checking…</span>
  return findings.length === 0 ? (
    <span className="chip border-green-700 bg-green-50 text-green-900">No findings</span>
  ) : (
    <ul className="flex flex-wrap gap-1" aria-label="Audit findings">
      {findings.map((f) => (
        <li key={f} className={`chip ${SEVERITY_CHIP[severityOf(f)]}`}>
          {/* The chip is a flex box, which drops the space between its children: mr-1 shows it, the text keeps it. */}
          <span className="mr-1 font-semibold">{SEVERITY_LABEL[severityOf(f)]}:</span> {auditLabel(f)}
        </li>
      ))}
    </ul>
  )
}

/** "Problem: dlr: Missing": the words a chip shows, for export and sorting. */
export function findingText(f: AuditKey): string {
  return `${SEVERITY_LABEL[severityOf(f)]}: ${auditLabel(f)}`
}

/** Column sets are module constants: stable references keep the table from rebuilding every row. */
export const COLUMNS_ALL = helper.columns([numberCol, typeCol, countryCol, tidCol, webhookCol, dlrCol, auditCol, messagesCol, activityCol])
export const COLUMNS_TYPED = helper.columns([numberCol, typeCol, tidCol, webhookCol, dlrCol, auditCol, messagesCol, activityCol])
export const COLUMN_IDS_ALL = ['number', 'type', 'country', 'tid', 'webhook', 'dlr', 'audit', 'messages', 'activity'] as const
export const COLUMN_IDS_TYPED = COLUMN_IDS_ALL.filter((c) => c !== 'country')
export const COLUMN_LABEL: Record<string, string> = {
  number: 'Number',
  type: 'Type',
  country: 'Country',
  tid: 'tid',
  webhook: 'Webhook',
  dlr: 'DLR',
  audit: 'Audit',
  messages: 'Messages',
  activity: 'Last activity (UTC)',
}

/** Ids and URLs read as code: set on the cell (see VirtualTable's cellClassNames), not a span in every row. */
export const CELL_CLASSES: Record<string, string> = {
  tid: 'font-mono text-xs break-all',
  webhook: 'font-mono text-xs break-all',
  dlr: 'font-mono text-xs break-all',
}

/** Webhook and DLR take what is left, split evenly, never under 12rem (see ColumnLayout.minWidth). */
export const COLUMN_WIDTHS: Record<string, string> = {
  number: '10.5rem',
  type: '5.5rem',
  country: '5.5rem',
  tid: '8.5rem',
  webhook: 'auto',
  dlr: 'auto',
  audit: '17rem',
  messages: '6.5rem',
  activity: '7.5rem',
}

/** The value each column exports: raw data, not formatted display. */
const EXPORT_VALUES: Record<string, (r: OwnedNumber) => string> = {
  number: (r) => r.number,
  type: (r) => r.type ?? '',
  country: (r) => r.country ?? '',
  tid: (r) => r.tid,
  webhook: (r) => r.webhook ?? '',
  dlr: (r) => r.dlr ?? '',
  audit: (r) => (findingsOf(r) ?? []).map(findingText).join('; '),
  messages: (r) => (factsOf(r) ? String(factsOf(r)!.indexed) : ''),
  activity: lastActivity,
}

export function exportValue(row: OwnedNumber, id: string): string {
  return EXPORT_VALUES[id]?.(row) ?? ''
}

/** What each column sorts by: the exported text, except numbers by their digits and audit by how many findings. */
export const SORT_VALUES: Record<string, SortValue<OwnedNumber>> = {
  ...EXPORT_VALUES,
  number: (r) => r.number.padStart(15, '0'),
  audit: (r) => findingsOf(r)?.length ?? -1,
  messages: (r) => factsOf(r)?.indexed ?? -1,
}
