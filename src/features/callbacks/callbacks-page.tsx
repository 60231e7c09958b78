import { useMutation, useQueryClient } from '@tanstack/react-query'
import { CALLBACKS_KEY, checkNow } from '../../api/callbacks'
import { ErrorAlert } from '../../components/alert'
import { Tabs } from '../../components/tabs'
import { useSetParams } from '../../lib/navigation'
import type { CallbacksSearch } from '../../lib/route-params'
import { AtRiskPanel } from './at-risk-panel'
import { checkNowWords } from './callback-words'
import { ChangesPanel } from './changes-panel'
import { EndpointsPanel } from './endpoints-panel'

const TABS = [
  { id: 'endpoints', label: 'Endpoints' },
  { id: 'changes', label: 'Changes' },
  { id: 'at-risk', label: 'Messages at risk' },
] as const

/**
 * The Callbacks page: every callback URL with its numbers and checks, the account's history of
 * changes (each with the window between two listings), and the messages that arrived or went out
 * while a callback was broken. Tab, number and endpoint live in the URL.
 */
export function CallbacksPage({ search, admin }: { search: CallbacksSearch; admin: boolean | null }) {
  const setParams = useSetParams('/callbacks')
  return (
    <section aria-labelledby="callbacks-heading">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h1 id="callbacks-heading" className="text-xl font-semibold">
            Callbacks
          </h1>
          <p className="mt-1 max-w-prose text-sm text-slate-700">
            Where each number sends incoming messages (webhook) and delivery reports (dlr), when that changed, whether those addresses
            answer, and which messages arrived or went out while one was broken. Query values in addresses are shown as •••.
          </p>
        </div>
        {admin ? <CheckNow /> : null}
      </div>
      <div className="mt-3">
        <Tabs
          tabs={TABS}
          value={search.tab}
          onChange={(tab) => setParams({ tab, endpoint: null }, { replace: false })}
          label="Callbacks"
          panelId="callbacks-panel"
        />
      </div>
      <div id="callbacks-panel" role="tabpanel" aria-labelledby={`tab-${search.tab}`} className="pt-3">
        {search.tab === 'endpoints' ? (
          <EndpointsPanel admin={admin === true} selected={search.endpoint} onSelect={(key) => setParams({ endpoint: key || null })} />
        ) : search.tab === 'changes' ? (
          <ChangesPanel number={search.number} onNumber={(n) => setParams({ number: n || null }, { replace: true })} />
        ) : (
          <AtRiskPanel number={search.number} onNumber={(n) => setParams({ number: n || null }, { replace: true })} />
        )}
      </div>
    </section>
  )
}

/** An admin's "Check now": one listing and one round of checks, then every callbacks answer asked again. */
function CheckNow() {
  const client = useQueryClient()
  const run = useMutation({
    mutationFn: checkNow,
    onSuccess: () => client.invalidateQueries({ queryKey: CALLBACKS_KEY }),
  })
  const r = run.data
  return (
    <div className="flex max-w-full flex-col items-start gap-1 sm:items-end">
      <button
        type="button"
        onClick={() => {
          run.mutate()
        }}
        disabled={run.isPending}
        className="rounded bg-blue-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-800 disabled:opacity-60"
      >
        {run.isPending ? 'Checking…' : 'Check now'}
      </button>
      <p role="status" className="text-sm text-slate-700 sm:text-right">
        {r ? checkNowWords(r) : ''}
      </p>
      {run.isError ? <ErrorAlert error={run.error} doing="checking the callbacks" takeFocus /> : null}
    </div>
  )
}
