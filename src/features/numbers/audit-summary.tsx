import { auditLabel, findingSentence, type AuditKey, type AuditResult, type Target } from './audit'
import { formatCount } from '../../lib/count'

/** Counts per finding (each a filter) and the distinct endpoints with how many numbers use each. */
export function AuditSummary({ audit, total, active, onFilter }: { audit: AuditResult; total: number; active: AuditKey | null; onFilter: (key: AuditKey | null) => void }) {
  const findings = [...audit.counts.entries()].sort((a, b) => b[1] - a[1])
  return (
    <section aria-labelledby="audit-heading" className="my-3 rounded border border-slate-200 bg-white p-3">
      <h2 id="audit-heading" className="text-base font-semibold">
        Callback audit
      </h2>
      {findings.length === 0 ? (
        <p className="mt-1 text-sm">All {formatCount(total)} numbers have HTTPS webhook and dlr URLs on public hosts.</p>
      ) : (
        <ul className="mt-2 flex flex-wrap gap-2" aria-label="Findings">
          {findings.map(([key, n]) => (
            <li key={key}>
              <button
                type="button"
                aria-pressed={active === key}
                onClick={() => onFilter(active === key ? null : key)}
                className={`rounded border px-2 py-1 text-left text-sm ${active === key ? 'border-blue-800 bg-blue-800 text-white' : 'border-amber-700 bg-amber-50 text-amber-950 hover:bg-amber-100'}`}
              >
                <span className="font-semibold">{auditLabel(key)}</span> — {findingSentence(key, n)}
              </button>
            </li>
          ))}
          {active ? (
            <li>
              <button type="button" className="btn" onClick={() => onFilter(null)}>
                Clear audit filter
              </button>
            </li>
          ) : null}
        </ul>
      )}
      <div className="mt-3 grid gap-3 md:grid-cols-2">
        {(['webhook', 'dlr'] as Target[]).map((t) => (
          <Endpoints key={t} target={t} list={audit.endpoints[t]} />
        ))}
      </div>
    </section>
  )
}

function Endpoints({ target, list }: { target: Target; list: Array<{ url: string; count: number }> }) {
  return (
    <details open={list.length <= 6}>
      <summary className="cursor-pointer text-sm font-semibold">
        {list.length} distinct {target === 'dlr' ? 'dlr' : 'webhook'} endpoint{list.length === 1 ? '' : 's'}
      </summary>
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
              <td className="font-mono break-all">{e.url || <em className="not-italic text-slate-700">(none)</em>}</td>
              <td className="text-right tabular-nums">{formatCount(e.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  )
}
