import { lazy, Suspense } from 'react'
import { CLASS_FILTER_LABEL, CLASS_FILTERS, severityOf, toggleAudit, type AuditFilter, type AuditResult } from './audit'
import { CLASS_STYLE, PRESSED } from './audit-chip-style'
import { formatCount } from '../../lib/count'
import { useUrlBound } from '../../lib/use-url-bound'
import { ReloadButton } from '../../components/alert'

/**
 * The disclosure's inside loads apart from the page. If its code cannot load, the disclosure
 * says so in place (the summary, chips and table stay), rather than the failure replacing the page.
 */
const AuditDetails = lazy(() =>
  import('./audit-details').then(
    (m) => ({ default: m.AuditDetails }),
    () => ({ default: DetailsNotLoaded }),
  ),
)

function DetailsNotLoaded() {
  return (
    <div role="alert" className="mt-1 text-sm" data-error-kind="code_load">
      <p>The findings could not be loaded: Switchboard may have been updated since this tab was opened, or the connection to it dropped.</p>
      <ReloadButton className="mt-1" />
    </div>
  )
}

/**
 * The audit, in a box whose height is the same before and after the audit lands: the heading,
 * one status line and the three class filters (counts shown as "…" until then) are there from
 * the first paint; the per-finding list and the endpoints sit in a closed disclosure. So the
 * table under it never moves when the findings arrive (no layout shift), and only the reader's
 * own click opens anything. The chips are toggle buttons (aria-pressed, Space or Enter), and
 * several may be pressed at once: the table shows the numbers that match any of them.
 */
export function AuditSummary({
  audit,
  total,
  active,
  onChange,
}: {
  audit: AuditResult | null
  total: number | null
  /** The chips pressed, as the URL has them. */
  active: readonly AuditFilter[]
  /** The chips pressed after a press or a release (empty: none). */
  onChange: (next: readonly AuditFilter[]) => unknown
}) {
  // A press shows at once (useUrlBound); the next selection is made from what is shown, so quick presses add up.
  const [pressed, setPressed] = useUrlBound(active, onChange)
  const onFilter = (f: AuditFilter | null) => {
    setPressed(f === null ? [] : toggleAudit(pressed, f))
  }
  const findings = audit ? [...audit.counts.entries()].sort((a, b) => severityRank(a[0]) - severityRank(b[0]) || b[1] - a[1]) : []
  return (
    <section aria-labelledby="audit-heading" className="my-3 rounded border border-slate-200 bg-white p-3" data-print="hide">
      <div className="flex flex-wrap items-baseline gap-x-3">
        <h2 id="audit-heading" className="text-base font-semibold">
          Callback audit
        </h2>
        {/* On a phone a line of its own under the heading, two lines tall, from the first paint: the
            counted-twice clause wraps there, and the short "Checking…" sat beside the heading, so the
            whole audit moved down a line when it landed (CLS 0.055 in the layout bench). */}
        <p role="status" className="text-sm text-slate-700 max-sm:min-h-10 max-sm:basis-full">
          {!audit || total === null
            ? 'Checking callback URLs…'
            : findings.length === 0
              ? `All ${formatCount(total)} numbers have HTTPS webhook and dlr URLs on public hosts.`
              : `Checked ${formatCount(total)} numbers${
                  audit.problemAndLook > 0
                    ? `; ${formatCount(audit.problemAndLook)} ${audit.problemAndLook === 1 ? 'is' : 'are'} counted twice (a problem and worth a look)`
                    : ''
                }.`}
        </p>
      </div>
      <ul className="mt-2 flex flex-wrap gap-2" aria-label="Audit filters (pick one or more)">
        {CLASS_FILTERS.map((c) => (
          <li key={c}>
            <button
              type="button"
              disabled={!audit}
              aria-pressed={pressed.includes(c)}
              onClick={() => {
                onFilter(c)
              }}
              className={`inline-flex min-h-8 items-center gap-1 rounded border px-2 py-1 text-sm disabled:cursor-wait ${pressed.includes(c) ? PRESSED : CLASS_STYLE[c]}`}
            >
              <span className="font-semibold">{CLASS_FILTER_LABEL[c]}</span>
              <span className="inline-block min-w-[6ch] text-left tabular-nums">· {audit ? formatCount(audit.classes[c]) : '…'}</span>
            </button>
          </li>
        ))}
        {pressed.length ? (
          <li>
            <button
              type="button"
              className="btn min-h-8"
              onClick={() => {
                onFilter(null)
              }}
            >
              {pressed.length > 1 ? 'Clear audit filters' : 'Clear audit filter'}
            </button>
          </li>
        ) : null}
      </ul>
      <details className="mt-2">
        <summary className="min-h-6 cursor-pointer text-sm font-semibold text-blue-800">Findings by kind, and endpoints</summary>
        {!audit ? (
          <p className="mt-1 text-sm">Checking callback URLs…</p>
        ) : (
          // Rendered (and fetched) once the audit is in, closed or not: the browser's find-in-page
          // still finds a finding's words and opens the disclosure, as before it loaded apart.
          <Suspense fallback={<p className="mt-1 text-sm">Loading the findings…</p>}>
            <AuditDetails audit={audit} findings={findings} pressed={pressed} onFilter={onFilter} />
          </Suspense>
        )}
      </details>
    </section>
  )
}

const severityRank = (k: Parameters<typeof severityOf>[0]) => (severityOf(k) === 'problem' ? 0 : 1)
