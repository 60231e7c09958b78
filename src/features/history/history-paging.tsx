import type { Zone } from '../../lib/dates'
import type { SetParams } from '../../lib/navigation'
import { pageSizesFor } from '../../lib/range'
import { GoToDate } from './go-to-date'
import { Pager } from './pager'
import { PhoneFold } from './phone-fold'
import type { useHistoryPage } from './use-history-page'

/** The pager over the history's pages and the look-up that jumps to a date. */
export function HistoryPaging({
  number,
  tid,
  zone,
  h,
  cap,
  indexed,
  checking,
  marked,
  asked = null,
  setParams,
}: {
  number: string
  tid: string
  zone: Zone
  h: ReturnType<typeof useHistoryPage>
  cap: number
  indexed: boolean
  checking: boolean
  /** A looked-up date's message is marked: the look-up is in use. */
  marked: boolean
  /** The day go-to-date was asked for and the record it marked, from the URL. */
  asked?: { day: string; position: number } | null
  setParams: SetParams<'/numbers/$number'>
}) {
  const { result, size, total } = h
  // A page change that failed keeps the last page's rows on screen: the pager names those rows
  // (it said "901–950" and page 19 over rows 1–50); the error names the page that did not load.
  const failed = result.isError && !result.isFetching
  const kept = failed && h.shown && h.shown.start !== h.start ? h.shown : null
  const start = kept ? kept.start : h.start
  const end = kept ? kept.end : h.end
  const page = kept ? Math.floor((kept.start - 1) / size) + 1 : h.page
  return (
    <div className="flex flex-wrap items-end justify-between gap-2 print:hidden">
      <Pager
        page={page}
        size={size}
        sizes={pageSizesFor(cap)}
        total={total}
        start={start}
        end={end}
        busy={result.isFetching}
        failed={failed}
        onPage={h.goPage}
        onSize={h.goSize}
      />
      <PhoneFold summary="Go to a date" open={marked}>
        <GoToDate
          number={number}
          tid={tid}
          total={total}
          zone={zone}
          indexed={indexed}
          checking={checking}
          asked={asked}
          onFound={(position, day) =>
            setParams({
              page: Math.ceil(position / size) <= 1 ? null : Math.ceil(position / size),
              mark: position,
              // The message by ordinal too (total known): a shared go-to-date link keeps marking it.
              o: total === null ? null : total - position + 1,
              date: day || null,
              past: null,
              view: null,
            })
          }
        />
      </PhoneFold>
    </div>
  )
}
