import {
  auditLabel,
  CLASS_FILTER_LABEL,
  CLASS_FILTERS,
  findingSentence,
  FINDING_ADVICE,
  findingOf,
  SEVERITY_LABEL,
  severityOf,
  toggleAudit,
  type AuditFilter,
  type AuditResult,
  type UrlTarget,
} from './audit'
import { formatCount } from '../../lib/count'
import { useUrlBound } from '../../lib/use-url-bound'

const CLASS_STYLE = {
  problem: 'border-red-700 bg-red-50 text-red-900 hover:bg-red-100',
  look: 'border-dashed border-amber-700 bg-amber-50 text-amber-950 hover:bg-amber-100',
  none: 'border-green-700 bg-green-50 text-green-900 hover:bg-green-100',
} as const
const PRESSED = 'border-blue-800 bg-blue-800 text-white'

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
          <>
            {findings.length ? (
              <ul className="mt-2 flex flex-wrap gap-2" aria-label="Findings">
                {findings.map(([key, n]) => {
                  const sev = severityOf(key)
                  return (
                    <li key={key}>
                      <button
                        type="button"
                        aria-pressed={pressed.includes(key)}
                        onClick={() => {
                          onFilter(key)
                        }}
                        className={`rounded border px-2 py-1 text-left text-sm ${pressed.includes(key) ? PRESSED : CLASS_STYLE[sev]}`}
                      >
                        <span className="font-semibold">
                          {SEVERITY_LABEL[sev]}: {auditLabel(key)}
                        </span>{' '}
                        — {findingSentence(key, n)}
                      </button>
                      <p className="mt-0.5 max-w-md text-xs text-slate-700">
                        <span className="font-semibold">Why it matters:</span> {FINDING_ADVICE[findingOf(key)].why}{' '}
                        <span className="font-semibold">How to fix:</span> {FINDING_ADVICE[findingOf(key)].fix}
                      </p>
                    </li>
                  )
                })}
              </ul>
            ) : null}
            <div className="mt-3 grid gap-3 md:grid-cols-2">
              {(['webhook', 'dlr'] as UrlTarget[]).map((t) => (
                <Endpoints key={t} target={t} list={audit.endpoints[t]} />
              ))}
            </div>
          </>
        )}
      </details>
    </section>
  )
}

const severityRank = (k: Parameters<typeof severityOf>[0]) => (severityOf(k) === 'problem' ? 0 : 1)

function Endpoints({ target, list }: { target: UrlTarget; list: Array<{ url: string; count: number }> }) {
  return (
    <div>
      <h3 className="text-sm font-semibold">
        {list.length} distinct {target === 'dlr' ? 'dlr' : 'webhook'} endpoint{list.length === 1 ? '' : 's'}
      </h3>
      <table className="mt-1 w-full text-xs">
        <caption className="sr-only">{target} endpoints and how many numbers use each</caption>
        <thead>
          <tr>
            <th scope="col" className="text-left">
              URL
            </th>
            <th scope="col" className="w-20 text-right">
              Numbers
            </th>
          </tr>
        </thead>
        <tbody>
          {list.map((e) => (
            <tr key={e.url || '(none)'}>
              <td className="font-mono break-all">{e.url || <em className="text-slate-700 not-italic">(none)</em>}</td>
              <td className="text-right tabular-nums">{formatCount(e.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
