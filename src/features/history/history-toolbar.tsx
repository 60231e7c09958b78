import { Link } from '@tanstack/react-router'
import { Tabs } from '../../components/tabs'
import type { Zone } from '../../lib/dates'
import type { SetParams } from '../../lib/navigation'
import type { HistorySearch } from '../../lib/route-params'
import { ZoneToggle } from '../../components/zone-toggle'

const VIEWS = [
  { id: 'log', label: 'Log' },
  { id: 'conversation', label: 'Conversations' },
] as const

/** The history's view tabs, links out, refresh and the time-zone switch. */
export function HistoryToolbar({
  number,
  view,
  zone,
  fetching,
  onRefresh,
  setParams,
}: {
  number: string
  view: HistorySearch['view']
  zone: Zone
  fetching: boolean
  onRefresh: () => void
  setParams: SetParams<'/numbers/$number'>
}) {
  return (
    <div className="mt-3 flex flex-wrap items-center gap-2 print:hidden">
      <Tabs
        tabs={VIEWS}
        value={view}
        onChange={(v) => setParams({ view: v === 'log' ? null : v })}
        label="History view"
        panelId="history-panel"
      />
      <Link to="/search" search={{ numbers: [number] }} className="text-sm text-blue-800 underline">
        Search this number
      </Link>
      <Link to="/charts" search={{ number }} className="text-sm text-blue-800 underline">
        Charts
      </Link>
      <button type="button" className="btn ml-auto" onClick={onRefresh} disabled={fetching}>
        {fetching ? 'Refreshing…' : 'Refresh'}
      </button>
      <ZoneToggle zone={zone} onChange={(tz) => setParams({ tz }, { replace: true })} />
    </div>
  )
}
