import { useIndexStatus } from '../../api/index-api'
import { holdsWhole, indexRowFor } from '../../api/index-status'
import { useMeta } from '../../api/meta'
import { toApiError } from '../../api/errors'
import { ErrorAlert } from '../../components/alert'
import { EmptyState, TableSkeleton } from '../../components/empty-state'
import { HistoryDisplayContext } from '../../components/message/display-context'
import { MediaViewer } from '../../components/message/media-viewer'
import { PrintHeader } from '../../components/print-header'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'
import type { HistorySearch } from '../../lib/route-params'
import { Link } from '@tanstack/react-router'
import { useEffect, useRef } from 'react'
import { useSetParams } from '../../lib/navigation'
import { ConversationView } from './conversation-view'
import { Envelope } from './envelope'
import { HistoryLog } from './history-log'
import { HistoryPaging } from './history-paging'
import { PhoneFold } from './phone-fold'
import { DriftNotice, ListedTids, MissingTid, PastEndNotice } from './history-notices'
import { HistoryToolbar } from './history-toolbar'
import { useHistoryDisplay } from './use-history-display'
import { useHistoryPage } from './use-history-page'
import { useKeepMarkedInView } from './use-keep-marked-in-view'
import { useVisibleMessages } from './use-visible-messages'
import { WholeHistoryExport } from './whole-history-export'

const ROW_ESTIMATE = 72

/**
 * What the index holds of this history: the number's row when it syncs under this tid, or the
 * further line (contract/lines.ts) that holds the history of a second tid the number is listed
 * under. The index's parts of the page (conversations, go to date, the whole export, the search
 * and charts links) read that row; look-ups need it whole (`indexed`), the export can say it is partial.
 */
function useHistoryIndex(number: string, tid: string) {
  const index = useIndexStatus()
  const facts = indexRowFor(index.status, number, tid)
  return { index, facts, indexNumber: facts?.number ?? number, indexed: holdsWhole(index.status, number, tid) }
}

export function HistoryPage({ number, search, canExportAll }: { number: string; search: HistorySearch; canExportAll: boolean | null }) {
  const setParams = useSetParams('/numbers/$number')
  // Arriving on a number's history, focus is on its heading, as on every other page (it was left on
  // <body>, and a screen reader said nothing of where it now was). Without scrolling: a link to a
  // marked message scrolls to that message.
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus({ preventScroll: true })
  }, [number])
  const meta = useMeta()
  const { tid, view, tz: zone } = search
  const { index, facts, indexNumber, indexed } = useHistoryIndex(number, tid)
  const h = useHistoryPage(number, search, meta.historyPageCap)
  const { result, shown, page, size, start, end, total } = h

  const { display, media, closeMedia } = useHistoryDisplay({
    number,
    tid,
    zone,
    marked: search.mark,
    indexAvailable: index.available,
    shown,
  })
  const { filters, sorting, visible, span } = useVisibleMessages(shown?.messages, search, zone)
  const tableBox = useKeepMarkedInView(search.mark === null ? -1 : visible.findIndex((m) => m.position === search.mark), ROW_ESTIMATE)
  const formatted = formatPhone(shown?.number ?? number)

  // A printout of one page says so: which records of how many, and the dates of those it holds.
  const printedHolds =
    shown && total !== null && total > 0
      ? `Records ${formatCount(start)}–${formatCount(Math.min(end, total))} of ${formatCount(total)} (the page printed)${
          visible.length !== shown.messages.length ? `, ${formatCount(visible.length)} of them after the page’s filter` : ''
        }${span ? `; dates ${span}` : ''}`
      : null

  if (!tid) return <MissingTid number={number} />

  const conversations = (total: number) => (
    <ConversationView
      number={number}
      indexNumber={indexNumber}
      tid={tid}
      page={page}
      size={size}
      total={total}
      more={search.more}
      party={search.party || null}
      indexAvailable={index.available}
      facts={facts}
      onMore={(n) => setParams({ more: n }, { replace: true })}
      onParty={(p) => setParams({ party: p }, { replace: true })}
    />
  )

  return (
    <HistoryDisplayContext.Provider value={display}>
      <section aria-labelledby="history-heading">
        <PrintHeader title={`Message history of ${formatted}`} number={number} span={span} holds={printedHolds} zone={zone} />
        <p className="text-sm print:hidden">
          <Link to="/" className="text-blue-800 underline">
            ← All numbers
          </Link>
        </p>
        <h1 id="history-heading" ref={heading} tabIndex={-1} className="mt-1 text-xl font-semibold">
          History of {formatted}
        </h1>
        <PhoneFold summary={`Number details${shown ? ` · ${formatCount(shown.total)} messages` : ''}`}>
          <Envelope page={shown} number={number} tid={tid} zone={zone} failed={result.isError && !result.isFetching} />
        </PhoneFold>
        <PastEndNotice past={search.past} total={total} size={size} />
        <DriftNotice drifted={h.drifted} onNewest={h.goNewest} />
        <HistoryToolbar
          number={indexNumber}
          view={view}
          zone={zone}
          fetching={result.isFetching}
          onRefresh={h.refresh}
          setParams={setParams}
        />

        <div id="history-panel" role="tabpanel" aria-labelledby={`tab-${view}`} className="pt-2">
          <HistoryPaging
            number={number}
            tid={tid}
            zone={zone}
            h={h}
            cap={meta.historyPageCap}
            indexed={indexed}
            checking={index.loading}
            marked={!!search.mark}
            asked={search.mark && search.date ? { day: search.date, position: search.mark } : null}
            setParams={setParams}
          />
          {result.isError ? (
            <ErrorAlert
              error={result.error}
              onRetry={() => void result.refetch()}
              retrying={result.isFetching}
              keptData={!!shown}
              where={`records ${formatCount(start)}–${formatCount(end)}`}
            />
          ) : null}
          {result.isError && toApiError(result.error).kind === 'not_found' ? <ListedTids number={number} tid={tid} /> : null}
          {!shown || h.pastEnd ? (
            result.isError ? (
              // The Conversations tab reads the index: the upstream failing does not take it away.
              view === 'conversation' && index.available && facts && !h.pastEnd ? (
                conversations(facts.upstreamTotal ?? facts.indexed)
              ) : null
            ) : (
              <TableSkeleton label="Loading messages" />
            )
          ) : shown.total === 0 ? (
            <EmptyState title={`No messages for ${formatted}`}>This number has not sent or received any messages yet.</EmptyState>
          ) : view === 'conversation' ? (
            conversations(shown.total)
          ) : (
            <HistoryLog
              number={number}
              tid={tid}
              zone={zone}
              shown={shown}
              visible={visible}
              filters={filters}
              sorting={sorting}
              rowEstimate={ROW_ESTIMATE}
              tableBox={tableBox}
              setParams={setParams}
            />
          )}
          {shown ? (
            <WholeHistoryExport
              number={number}
              indexNumber={indexNumber}
              tid={tid}
              total={shown.total}
              canExportAll={canExportAll}
              indexAvailable={index.available}
              indexLoading={index.loading}
              facts={facts}
              zone={zone}
              chunk={meta.historyPageCap}
            />
          ) : null}
        </div>
        <MediaViewer media={media} onClose={closeMedia} />
      </section>
    </HistoryDisplayContext.Provider>
  )
}
