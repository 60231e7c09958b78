import { createColumnHelper } from '@tanstack/react-table'
import { historyPath } from '../../lib/paths'
import { Link } from '../../lib/router'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'
import { columnIds, type Features } from '../../components/data-table/features'
import type { OwnedNumber } from '../../api/numbers'
import { auditLabel, findingsOf, SEVERITY_LABEL, severityOf, type AuditKey } from './audit'

const helper = createColumnHelper<Features, OwnedNumber>()

const text = (v: string | null) => (v === null || v === '' ? <span className="text-slate-600">—</span> : v)

/** Ids and URLs read as code: set on the cell (ColumnLayout.cellClass), not a span in every row. */
const CODE = 'font-mono text-xs break-all'

const numberCol = helper.accessor('number', {
  id: 'number',
  header: 'Number',
  enableHiding: false,
  // Numbers sort by their digits, as numbers: a shorter one first.
  meta: { card: 'title', width: '10.5rem', exportValue: (r) => r.number, sortValue: (r) => r.number.padStart(15, '0') },
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
const typeValue = (r: OwnedNumber) => r.type ?? ''
const typeCol = helper.accessor(typeValue, {
  id: 'type',
  header: 'Type',
  meta: { card: 'meta', width: '5.5rem', exportValue: typeValue },
  cell: ({ row }) => (row.original.type === 'tollfree' ? 'Toll-free' : row.original.type === 'local' ? 'Local' : text(row.original.type)),
})
const countryValue = (r: OwnedNumber) => r.country ?? ''
const countryCol = helper.accessor(countryValue, {
  id: 'country',
  header: 'Country',
  meta: { card: 'meta', width: '5.5rem', exportValue: countryValue },
  cell: ({ row }) => text(row.original.country),
})
const tidCol = helper.accessor('tid', {
  id: 'tid',
  header: 'tid',
  meta: { card: 'field', width: '8.5rem', cellClass: CODE, exportValue: (r) => r.tid },
  cell: ({ row }) => row.original.tid,
})
const urlCell = (v: string | null) => (v ? v : <span className="font-sans text-slate-600">—</span>)
// Webhook and DLR take what is left, split evenly, never under 12rem (see ColumnLayout.minWidth).
const webhookValue = (r: OwnedNumber) => r.webhook ?? ''
const webhookCol = helper.accessor(webhookValue, {
  id: 'webhook',
  header: 'Webhook',
  meta: { card: 'body', width: 'auto', minWidth: '12rem', cellClass: CODE, exportValue: webhookValue },
  cell: ({ row }) => urlCell(row.original.webhook),
})
const dlrValue = (r: OwnedNumber) => r.dlr ?? ''
const dlrCol = helper.accessor(dlrValue, {
  id: 'dlr',
  header: 'DLR',
  meta: { card: 'body', width: 'auto', minWidth: '12rem', cellClass: CODE, exportValue: dlrValue },
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
const indexedCount = (r: OwnedNumber) => factsOf(r)?.indexed ?? -1
const messagesCol = helper.accessor(indexedCount, {
  id: 'messages',
  header: 'Messages',
  meta: {
    card: 'meta',
    cardLabel: 'Messages indexed',
    width: '6.5rem',
    exportValue: (r) => (factsOf(r) ? String(factsOf(r)!.indexed) : ''),
    sortValue: indexedCount,
  },
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
  meta: { card: 'meta', cardLabel: 'Last activity (UTC)', width: '7.5rem', exportValue: lastActivity },
  cell: ({ row }) => lastActivity(row.original) || <span className="text-slate-600">—</span>,
})
// Audit sorts by how many findings (none yet: first), exports the chips' words.
const findingCount = (r: OwnedNumber) => findingsOf(r)?.length ?? -1
const auditCol = helper.accessor(findingCount, {
  id: 'audit',
  header: 'Audit',
  meta: {
    card: 'body',
    width: '17rem',
    exportValue: (r) => (findingsOf(r) ?? []).map(findingText).join('; '),
    sortValue: findingCount,
  },
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
export const COLUMN_IDS_ALL = columnIds(COLUMNS_ALL)
export const COLUMN_IDS_TYPED = columnIds(COLUMNS_TYPED)
