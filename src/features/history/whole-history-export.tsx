import { whoCan } from '../../../contract/roles'
import type { NumberIndexStatus } from '../../api/index-api'
import type { Zone } from '../../lib/dates'
import { ExportAll } from './export-all'
import { forgottenAt, wholeHistoryIndexed } from './index-facts'

/** "Export the whole history" for who may export the index; a note for the rest; nothing while the role is unknown. */
export function WholeHistoryExport({
  number,
  indexNumber = number,
  tid,
  total,
  canExportAll,
  indexAvailable,
  indexLoading,
  facts,
  zone,
  chunk,
}: {
  number: string
  /** The index's key of this history: the number, or its further line's (contract/lines.ts). */
  indexNumber?: string
  tid: string
  total: number
  canExportAll: boolean | null
  indexAvailable: boolean
  /** The index's status has not answered yet: whether the whole history can come from it is not known. */
  indexLoading: boolean
  facts: NumberIndexStatus | undefined
  zone: Zone
  chunk: number
}) {
  if (total <= 0) return null
  // Until the index has answered, nothing is offered: "not available yet" read as "off", and a
  // click in those seconds ran the browser's export, capped at the newest 50,000 and never logged
  // as an export, on a number the index holds whole.
  if (canExportAll && indexLoading)
    return (
      <p role="status" className="mt-4 text-sm text-slate-700 print:hidden">
        Checking the message index for the whole-history export…
      </p>
    )
  if (canExportAll)
    return (
      <div className="mt-4 print:hidden">
        <ExportAll
          number={number}
          indexNumber={indexNumber}
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
        Exporting the whole history is for {whoCan('exportIndex')}: ask one of them on your team for the file.
      </p>
    )
  return null
}
