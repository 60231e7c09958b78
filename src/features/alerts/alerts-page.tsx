import { useQuery } from '@tanstack/react-query'
import { aRole } from '../../../contract/roles'
import { alertsQuery } from '../../api/alerts'
import { accessOf, mayAt, mayDo, useMe } from '../../api/me'
import { ErrorAlert } from '../../components/alert'
import { TableSkeleton } from '../../components/empty-state'
import { Tabs } from '../../components/tabs'
import { useSetParams } from '../../lib/navigation'
import type { AlertsSearch } from '../../lib/route-params'
import { ChannelsPanel } from './channels-panel'
import { FiringPanel } from './firing-panel'
import { HistoryPanel } from './history-panel'
import { RulesPanel } from './rules-panel'

/**
 * Alerts: what fires now (acknowledge, silence), the history, the rules and their thresholds,
 * and the channels notices go to with their delivery logs. Everyone signed in reads it; admins
 * change it (the server refuses anyone else, and logs each change). Who is signed in comes from
 * /api/auth/me, as the layout reads it: the page names that role, and offers nothing on a guess.
 */

const TABS = [
  { id: 'now', label: 'Firing now' },
  { id: 'rules', label: 'Rules' },
  { id: 'channels', label: 'Channels' },
  { id: 'history', label: 'History' },
] as const

export function AlertsPage({ search }: { search: AlertsSearch }) {
  const page = useQuery(alertsQuery())
  const access = accessOf(useMe().data)
  const isAdmin = mayAt(access, 'admin') === true
  const setParams = useSetParams('/alerts')
  const tab = search.tab
  const firing = page.data?.firing.length ?? 0
  const tabs = TABS.map((t) => (t.id === 'now' && page.data ? { ...t, label: `Firing now (${firing})` } : t))
  return (
    <section aria-labelledby="alerts-heading">
      <h1 id="alerts-heading" className="mb-1 text-xl font-semibold">
        Alerts
      </h1>
      <p className="mb-3 text-sm text-slate-700">
        Switchboard tells the team by webhook, chat or email when something needs them: once when it starts, again at each rule’s reminder
        interval, and when it is over.
        {isAdmin || access === 'unknown' ? null : ` You are signed in as ${aRole(access)}: an admin changes rules and channels.`}
      </p>
      <Tabs
        tabs={tabs}
        value={tab}
        onChange={(next) => setParams({ tab: next === 'now' ? null : next })}
        label="Alerts"
        panelId="alerts-panel"
      />
      <div id="alerts-panel" role="tabpanel" aria-labelledby={`tab-${tab}`} className="pt-3">
        {page.error ? (
          <ErrorAlert
            error={page.error}
            where="alerts"
            keptData={!!page.data}
            onRetry={() => void page.refetch()}
            retrying={page.isFetching}
          />
        ) : null}
        {page.isPending ? <TableSkeleton rows={4} label="Loading alerts…" /> : null}
        {page.data ? (
          tab === 'now' ? (
            <FiringPanel data={page.data} isAdmin={isAdmin} />
          ) : tab === 'rules' ? (
            <RulesPanel rules={page.data.rules} isAdmin={isAdmin} />
          ) : tab === 'channels' ? (
            <ChannelsPanel data={page.data} isAdmin={isAdmin} maySendHead={mayDo(access, 'sendLogWitness') === true} />
          ) : (
            <HistoryPanel alerts={page.data.history} />
          )
        ) : null}
      </div>
    </section>
  )
}
