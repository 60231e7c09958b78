import { formatCount } from '../../lib/count'
import {
  auditLabel,
  findingOf,
  SEVERITY_LABEL,
  severityOf,
  type AuditFilter,
  type AuditKey,
  type AuditResult,
  type UrlTarget,
} from './audit'
import { FINDING_ADVICE, findingSentence } from './audit-advice'
import { CLASS_STYLE, PRESSED } from './audit-chip-style'

/**
 * The inside of the audit summary's "Findings by kind, and endpoints" disclosure: a chip per
 * finding with why it matters and how to fix it, and the distinct endpoints. Loaded apart from
 * the numbers page (./audit-summary): nothing here shows until the reader opens the disclosure.
 */
export function AuditDetails({
  audit,
  findings,
  pressed,
  onFilter,
}: {
  audit: AuditResult
  /** The findings and their counts, problems first, then by count. */
  findings: ReadonlyArray<readonly [AuditKey, number]>
  pressed: readonly AuditFilter[]
  onFilter: (f: AuditFilter) => void
}) {
  return (
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
  )
}

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
