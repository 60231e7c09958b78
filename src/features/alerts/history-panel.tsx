import type { AlertItem } from '../../api/alerts'
import { EmptyState } from '../../components/empty-state'
import { AlertCard } from './alert-parts'

/** The newest resolved alerts. */
export function HistoryPanel({ alerts }: { alerts: AlertItem[] }) {
  return (
    <>
      <h2 className="mb-1 text-lg font-semibold">Resolved alerts</h2>
      {alerts.length === 0 ? (
        <EmptyState title="No resolved alerts yet">An alert appears here once what it was about is over.</EmptyState>
      ) : (
        <ul className="flex flex-col gap-2" aria-label="Resolved alerts">
          {alerts.map((a) => (
            <AlertCard key={a.id} alert={a} />
          ))}
        </ul>
      )}
    </>
  )
}
