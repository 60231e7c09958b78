import { createColumnHelper } from '@tanstack/react-table'
import { notIndexedYet } from '../../api/index-status'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'
import { columnIds, type Features } from '../../components/data-table/features'
import { AUDIT_KEYS, auditLabel, joinAnd, listedTwiceText, SEVERITY_LABEL, severityOf } from './audit'
import { HistoryLink } from './history-link'
import { WatchNotes } from './watch-notes-cell'
import type { NumberRow } from './number-rows'

const helper = createColumnHelper<Features, NumberRow>()

const dash = <span className="text-slate-600">—</span>
const text = (v: string | null) => (v === null || v === '' ? dash : v)

/** Ids and URLs read as code: set on the cell (ColumnLayout.cellClass), not a span in every row. */
const CODE = 'font-mono text-xs break-all'

const numberCol = helper.accessor((r) => r.owned.number, {
  id: 'number',
  header: 'Number',
  enableHiding: false,
  // Numbers sort by their digits, as numbers: a shorter one first.
  meta: { card: 'title', width: '9.5rem', exportValue: (r) => r.owned.number, sortValue: (r) => r.owned.number.padStart(15, '0') },
  cell: ({ row }) => (
    <>
      <HistoryLink
        number={row.original.owned.number}
        tid={row.original.owned.tid}
        className="block w-fit font-medium text-blue-800 underline-offset-2 hover:underline"
      >
        {formatPhone(row.original.owned.number)}
      </HistoryLink>
      <span className="block font-mono text-xs text-slate-600 select-all">{row.original.owned.number}</span>
      {row.original.watch ? <WatchNotes number={row.original.owned.number} notes={row.original.watch} /> : null}
    </>
  ),
})
const typeValue = (r: NumberRow) => r.owned.type ?? ''
const typeCol = helper.accessor(typeValue, {
  id: 'type',
  header: 'Type',
  meta: { card: 'meta', width: '5rem', exportValue: typeValue },
  cell: ({ row: { original: r } }) => (r.owned.type === 'tollfree' ? 'Toll-free' : r.owned.type === 'local' ? 'Local' : text(r.owned.type)),
})
const countryValue = (r: NumberRow) => r.owned.country ?? ''
const countryCol = helper.accessor(countryValue, {
  id: 'country',
  header: 'Country',
  meta: { card: 'meta', width: '5.5rem', exportValue: countryValue },
  cell: ({ row }) => text(row.original.owned.country),
})
const tidValue = (r: NumberRow) => r.owned.tid
const tidCol = helper.accessor(tidValue, {
  id: 'tid',
  header: 'tid',
  meta: { card: 'field', width: '7.5rem', cellClass: CODE, exportValue: tidValue },
  cell: ({ row }) => row.original.owned.tid,
})
const urlCell = (v: string | null) => (v ? v : <span className="font-sans text-slate-600">—</span>)
// Webhook and DLR take what is left, split evenly, never under 10rem (see ColumnLayout.minWidth):
// with the others, 77.5rem, so every column fits a 1280 px window's page (about 78rem) without scrolling sideways.
const webhookValue = (r: NumberRow) => r.owned.webhook ?? ''
const webhookCol = helper.accessor(webhookValue, {
  id: 'webhook',
  header: 'Webhook',
  meta: { card: 'body', width: 'auto', minWidth: '10rem', cellClass: CODE, exportValue: webhookValue },
  cell: ({ row }) => urlCell(row.original.owned.webhook),
})
const dlrValue = (r: NumberRow) => r.owned.dlr ?? ''
const dlrCol = helper.accessor(dlrValue, {
  id: 'dlr',
  header: 'DLR',
  meta: { card: 'body', width: 'auto', minWidth: '10rem', cellClass: CODE, exportValue: dlrValue },
  cell: ({ row }) => urlCell(row.original.owned.dlr),
})
// What the message index holds for the number; numbers it holds nothing for (or has not read yet) sort first.
const indexedCount = (r: NumberRow) => (r.index && !notIndexedYet(r.index) ? r.index.indexed : -1)
const messagesCol = helper.accessor(indexedCount, {
  id: 'messages',
  header: 'Messages',
  sortDescFirst: true,
  meta: {
    card: 'meta',
    cardLabel: 'Messages indexed',
    width: '6.5rem',
    exportValue: (r) => (r.index && !notIndexedYet(r.index) ? String(r.index.indexed) : ''),
    sortValue: indexedCount,
  },
  cell: ({ row: { original: r } }) =>
    !r.index ? dash : notIndexedYet(r.index) ? <span className="text-slate-600">not indexed yet</span> : formatCount(r.index.indexed),
})
/** The newest indexed message's day (UTC, from its ISO date: no Intl on the numbers page's first render). */
const lastActivity = (r: NumberRow) => r.index?.newestDate?.slice(0, 10) ?? ''
const activityCol = helper.accessor(lastActivity, {
  id: 'activity',
  header: 'Last activity (UTC)',
  meta: { card: 'meta', cardLabel: 'Last activity (UTC)', width: '7.5rem', exportValue: lastActivity },
  cell: ({ row }) => lastActivity(row.original) || dash,
})
/**
 * The audit exports one cell per kind of finding, headed "Audit: dlr: Missing" and so on, in
 * AUDIT_KEYS order: empty when the number has no such finding, else its severity in words
 * ("Problem", "Worth a look"); the "Listed twice" cell also names the tids ("Worth a look: tids
 * A and B"). One cell per kind rather than one row per finding keeps the export one row per
 * number, exactly the rows on screen, and lets a spreadsheet filter on one finding by itself.
 * Before the audit has run every audit cell is "not checked", never a clean-looking blank.
 */
export const AUDIT_EXPORT_HEADERS = AUDIT_KEYS.map((k) => `Audit: ${auditLabel(k)}`)
function auditExportCells(r: NumberRow): string[] {
  const found = r.findings
  return AUDIT_KEYS.map((k) => {
    if (!found) return 'not checked'
    if (!found.includes(k)) return ''
    const sev = SEVERITY_LABEL[severityOf(k)]
    return k === 'number.listed_twice' && r.listedWith ? `${sev}: tids ${joinAnd(r.listedWith)}` : sev
  })
}

// Audit sorts by its problems, then by what is worth a look (not audited yet: first).
const findingCount = (r: NumberRow) => (r.findings ? r.findings.reduce((sum, f) => sum + (severityOf(f) === 'problem' ? 100 : 1), 0) : -1)
const auditCol = helper.accessor(findingCount, {
  id: 'audit',
  header: 'Audit',
  sortDescFirst: true,
  meta: {
    card: 'body',
    width: '16rem',
    exportCells: { headers: AUDIT_EXPORT_HEADERS, values: auditExportCells },
    sortValue: findingCount,
  },
  cell: ({ row }) => <AuditCell findings={row.original.findings} listedWith={row.original.listedWith} />,
})

/** Severity in words on every chip ("Problem", "Worth a look"); colour and the border style only repeat it. */
const SEVERITY_CHIP = {
  problem: 'border-red-700 bg-red-50 text-red-900',
  look: 'border-dashed border-amber-700 bg-amber-50 text-amber-950',
} as const

function AuditCell({ findings, listedWith }: { findings: NumberRow['findings']; listedWith: NumberRow['listedWith'] }) {
  if (!findings) return <span className="text-xs text-slate-700">Checking…</span>
  return findings.length === 0 ? (
    <span className="chip border-green-700 bg-green-50 text-green-900">No findings</span>
  ) : (
    <ul className="flex flex-wrap gap-1" aria-label="Audit findings">
      {findings.map((f) => (
        <li key={f} className={`chip ${SEVERITY_CHIP[severityOf(f)]} ${f === 'number.listed_twice' ? 'whitespace-normal' : ''}`}>
          {/* The chip is a flex box, which drops the space between its children: mr-1 shows it, the text keeps it.
              The listed-twice chip names two tids, longer than the column: it wraps (two lines fit the row) rather than being cut. */}
          <span className="mr-1 font-semibold whitespace-nowrap">{SEVERITY_LABEL[severityOf(f)]}:</span>{' '}
          {f === 'number.listed_twice' && listedWith ? `number: ${listedTwiceText(listedWith)}` : auditLabel(f)}
        </li>
      ))}
    </ul>
  )
}

/** Column sets are module constants: stable references keep the table from rebuilding every row. */
export const COLUMNS_ALL = helper.columns([numberCol, typeCol, countryCol, tidCol, webhookCol, dlrCol, auditCol, messagesCol, activityCol])
export const COLUMNS_TYPED = helper.columns([numberCol, typeCol, tidCol, webhookCol, dlrCol, auditCol, messagesCol, activityCol])
export const COLUMN_IDS_ALL = columnIds(COLUMNS_ALL)
export const COLUMN_IDS_TYPED = columnIds(COLUMNS_TYPED)
