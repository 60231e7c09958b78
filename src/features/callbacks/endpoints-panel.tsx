import { useMutation, useQuery } from '@tanstack/react-query'
import { endpointQuery, endpointsQuery, type Check, type Endpoint } from '../../api/callback-endpoints'
import { revealAddress } from '../../api/callbacks'
import { ErrorAlert } from '../../components/alert'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { ExportButtons } from '../../components/export-buttons'
import { NumbersOf } from './number-link'
import { sinceWords, untilWords, OUTCOME_CLASS, OUTCOME_MARK, OUTCOME_WORDS } from './callback-words'

const when = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' })

/** Every callback URL the last listing shows: its numbers, its latest check, its down periods. */
export function EndpointsPanel({ selected, onSelect, admin }: { selected: string; onSelect: (key: string) => void; admin: boolean }) {
  const q = useQuery(endpointsQuery())
  if (q.isPending) return <TableSkeleton rows={4} label="Loading callback endpoints" />
  if (q.isError) return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="callback endpoints" />
  if (q.data.length === 0)
    return (
      <EmptyState title="No callback addresses yet">
        The server lists the account's numbers every few minutes; their webhook and dlr addresses appear here after the first listing. An
        admin can take it now with Check now.
      </EmptyState>
    )
  // What needs attention first: failing and redirecting, then 4xx, up, and the ones not checked.
  const shown = [...q.data].sort((a, b) => rank(a) - rank(b))
  const failing = q.data.filter((e) => e.latest && (e.latest.outcome === 'failing' || e.latest.outcome === 'redirect')).length
  return (
    <>
      <p role="status" className="text-sm text-slate-700">
        {q.data.length} address{q.data.length === 1 ? '' : 'es'}; {failing} failing or redirecting.
      </p>
      <div className="mt-2 print:hidden">
        <ExportButtons
          nameParts={['callbacks-endpoints']}
          getData={() => ({
            header: [
              'address',
              'webhook_of',
              'dlr_of',
              'state',
              'detail',
              'checked_at',
              'status',
              'latency_ms',
              'tls_days_to_expiry',
              'times_down',
            ],
            rows: shown.map((e) => [
              e.url,
              e.webhookOf.join(' '),
              e.dlrOf.join(' '),
              e.latest ? OUTCOME_WORDS[e.latest.outcome] : 'Not checked yet',
              e.latest?.detail ?? '',
              e.latest?.at ?? '',
              e.latest?.status ?? '',
              e.latest?.latencyMs ?? '',
              e.latest?.tlsDays ?? '',
              e.down.length,
            ]),
          })}
        />
      </div>
      <ul className="mt-2 space-y-3">
        {shown.map((e) => (
          <EndpointCard
            key={e.key}
            e={e}
            admin={admin}
            open={selected === e.key}
            onToggle={() => {
              onSelect(selected === e.key ? '' : e.key)
            }}
          />
        ))}
      </ul>
    </>
  )
}

const RANK: Record<string, number> = { failing: 0, redirect: 1, 'client-error': 2, up: 4, private: 5, invalid: 6 }
const rank = (e: Endpoint) => (e.latest ? (RANK[e.latest.outcome] ?? 3) : 3)

function State({ c }: { c: Check | null }) {
  if (!c) return <span className="text-slate-700">Not checked yet</span>
  return (
    <span className={`font-medium ${OUTCOME_CLASS[c.outcome]}`}>
      <span aria-hidden="true">{OUTCOME_MARK[c.outcome]} </span>
      {OUTCOME_WORDS[c.outcome]}
    </span>
  )
}

function Tls({ c }: { c: Check | null }) {
  if (!c || c.tlsDays === null) return null
  const soon = c.tlsDays <= 30
  return (
    <p className={soon ? 'font-medium text-amber-800' : 'text-slate-700'}>
      {c.tlsDays < 0
        ? 'TLS certificate expired.'
        : `TLS ${c.tlsProtocol ?? ''}: the certificate expires in ${c.tlsDays} day${c.tlsDays === 1 ? '' : 's'}${soon ? ` (within ${c.tlsDays <= 7 ? 7 : c.tlsDays <= 14 ? 14 : 30} days)` : ''}.`}
    </p>
  )
}

function EndpointCard({ e, open, onToggle, admin }: { e: Endpoint; open: boolean; onToggle: () => void; admin: boolean }) {
  const lastDown = e.down[0]
  return (
    <li className="rounded border border-slate-200 bg-white p-3 text-sm">
      <p className="font-mono break-all">{e.url}</p>
      {admin && e.url.includes('•••') ? <Reveal k={e.key} /> : null}
      <NumbersOf label="Webhook" numbers={e.webhookOf} />
      <NumbersOf label="Delivery reports (dlr)" numbers={e.dlrOf} />
      <p className="mt-1">
        <State c={e.latest} />
        {e.latest ? <span className="text-slate-700"> · checked {when.format(new Date(e.latest.at))}</span> : null}
      </p>
      {e.latest ? <p className="mt-1 break-words">{e.latest.detail}</p> : null}
      <Tls c={e.latest} />
      {lastDown ? (
        <p className="mt-1 text-slate-700">
          {lastDown.end ? 'Last down' : 'Down'} {sinceWords(lastDown.start)}
          {lastDown.end ? `, ${untilWords(lastDown.end)}` : ', and still down'}.
          {e.down.length > 1 ? ` Down ${e.down.length} times in its history.` : ''}
        </p>
      ) : null}
      <button type="button" aria-expanded={open} onClick={onToggle} className="mt-2 text-blue-800 underline">
        {open ? 'Hide its checks' : 'Show its checks'}
        <span className="sr-only"> of {e.url}</span>
      </button>
      {open ? <EndpointChecks k={e.key} /> : null}
    </li>
  )
}

/** An admin sees one address whole, query secret and all; the server writes it in the access log. */
function Reveal({ k }: { k: string }) {
  const reveal = useMutation({ mutationFn: () => revealAddress(k) })
  if (reveal.data) return <p className="mt-1 font-mono break-all text-amber-900">Whole address: {reveal.data}</p>
  return (
    <>
      <button
        type="button"
        onClick={() => {
          reveal.mutate()
        }}
        disabled={reveal.isPending}
        className="mt-1 text-sm text-blue-800 underline"
      >
        Reveal the whole address (recorded in the access log)
      </button>
      {reveal.isError ? <ErrorAlert error={reveal.error} doing="revealing the address" takeFocus /> : null}
    </>
  )
}

function EndpointChecks({ k }: { k: string }) {
  const q = useQuery(endpointQuery(k))
  if (q.isPending) return <p role="status">Loading its checks…</p>
  if (q.isError)
    return <ErrorAlert error={q.error} onRetry={() => void q.refetch()} retrying={q.isFetching} where="this address's checks" />
  const e = q.data
  if (!e) return <p>This address is no longer listed.</p>
  return (
    <div className="mt-2 space-y-2">
      <h3 className="font-semibold">Up and down</h3>
      {e.down.length === 0 ? (
        <p>Never seen down.</p>
      ) : (
        <ul className="list-disc pl-5">
          {e.down.map((d) => (
            <li key={d.start.earliest}>
              Down {sinceWords(d.start)}
              {d.end ? `, ${untilWords(d.end)}` : ', and still down'}
            </li>
          ))}
        </ul>
      )}
      <h3 className="font-semibold">Checks, newest first</h3>
      <ol className="space-y-1">
        {(e.checks ?? []).map((c) => (
          <li key={c.at} className="border-t border-slate-100 pt-1">
            <span className="tabular-nums">{when.format(new Date(c.at))}</span> · <State c={c} />
            <span className="block break-words text-slate-700">{c.detail}</span>
          </li>
        ))}
      </ol>
    </div>
  )
}
