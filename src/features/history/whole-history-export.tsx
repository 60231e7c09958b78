import type { NumberIndexStatus } from '../../api/index-api'
import type { Zone } from '../../lib/dates'
import { ExportAll } from './export-all'
import { forgottenAt, wholeHistoryIndexed } from './index-facts'

/** "Export the whole history" for admins; a note for viewers; nothing while the role is unknown. */
export function WholeHistoryExport({
  number,
  tid,
  total,
  canExportAll,
  indexAvailable,
  facts,
  zone,
  chunk,
}: {
  number: string
  tid: string
  total: number
  canExportAll: boolean | null
  indexAvailable: boolean
  facts: NumberIndexStatus | undefined
  zone: Zone
  chunk: number
}) {
  if (total <= 0) return null
  if (canExportAll)
    return (
      <div className="mt-4 print:hidden">
        <ExportAll
          number={number}
          tid={tid}
          total={total}
          index={
            indexAvailable
              ? { indexed: facts?.indexed ?? 0, complete: wholeHistoryIndexed(facts), forgotten: forgottenAt(facts) !== null }
              : null
          }
          zone={zone}
          chunk={chunk}
        />
      </div>
    )
  if (canExportAll === false)
    return (
      <p className="mt-4 text-sm text-slate-700 print:hidden">
        Exporting the whole history is for admins: ask one of your team&rsquo;s admins for the file.
      </p>
    )
  return null
}
