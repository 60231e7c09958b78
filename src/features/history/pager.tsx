import { useState } from 'react'
import { pageCount, pageSizesFor, rangeText } from '../../lib/range'
import { formatCount } from '../../lib/count'
import { useUrlBound } from '../../lib/use-url-bound'
import { useSearch } from '@tanstack/react-router'

export function Pager({
  page,
  size,
  sizes,
  total,
  start,
  end,
  busy,
  failed = false,
  onPage,
  onSize,
}: {
  page: number
  size: number
  /** The choices HISTORY_PAGE_CAP allows. */
  sizes: readonly number[]
  total: number | null
  start: number
  end: number
  busy: boolean
  /** The page could not be loaded: no "Loading…" or "of …" promises beside the error. */
  failed?: boolean
  onPage: (page: number) => void
  /** The URL's page size changed (a pick shows at once, useUrlBound). */
  onSize: (size: number) => unknown
}) {
  const [shownSize, pickSize] = useUrlBound(size, onSize)
  const pages = total === null ? null : pageCount(total, size)
  const [jump, setJump] = useState('')
  const last = pages ?? page
  // A link refitted to this server's page cap (use-history-page.ts) says so while its records are on screen.
  const asked = useSearch({ strict: false, select: (s) => s.asked ?? null })
  const refitted = asked !== null && start >= asked.first && start <= asked.last ? asked : null
  return (
    <>
      {refitted ? <RefitNotice asked={refitted} size={size} cap={Math.max(...sizes)} start={start} end={end} total={total} /> : null}
      <nav aria-label="Pagination" className="flex flex-wrap items-center gap-2 py-2">
        <label className="flex items-center gap-1 text-sm">
          Rows per page
          <select
            className="input"
            value={shownSize}
            onChange={(e) => {
              pickSize(Number(e.target.value))
            }}
          >
            {sizes.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <p className="min-w-40 text-sm tabular-nums" aria-live="polite" aria-atomic="true">
          {total !== null ? rangeText(start, end, total) : failed ? 'Not loaded: see the error' : 'Loading…'}
          {busy ? <span className="sr-only"> (loading)</span> : null}
        </p>
        <div className="flex gap-1">
          <button
            type="button"
            className="btn"
            onClick={() => {
              onPage(1)
            }}
            disabled={page <= 1}
            aria-label="First page"
          >
            «
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => {
              onPage(page - 1)
            }}
            disabled={page <= 1}
            aria-label="Previous page"
          >
            ‹
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => {
              onPage(page + 1)
            }}
            // Failed with no total: nothing says a next page exists (a wrong tid would only fail again).
            disabled={pages === null ? failed : page >= pages}
            aria-label="Next page"
          >
            ›
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => {
              onPage(last)
            }}
            disabled={pages === null || page >= pages}
            aria-label="Last page"
          >
            »
          </button>
        </div>
        <form
          className="flex items-center gap-1 text-sm"
          onSubmit={(e) => {
            e.preventDefault()
            const n = Number(jump)
            if (Number.isInteger(n) && n >= 1) onPage(pages ? Math.min(n, pages) : n)
            setJump('')
          }}
        >
          <label className="flex items-center gap-1">
            Go to page
            <input
              className="input w-20"
              inputMode="numeric"
              pattern="[0-9]*"
              value={jump}
              onChange={(e) => {
                setJump(e.target.value)
              }}
              placeholder={String(page)}
            />
          </label>
          {pages !== null ? (
            <span className="text-slate-700">of {formatCount(pages)}</span>
          ) : failed ? null : (
            <span className="text-slate-700">of …</span>
          )}
          <button type="submit" className="btn">
            Go
          </button>
        </form>
      </nav>
    </>
  )
}

/**
 * "This link named records 1,001–1,500 …": a shared link made where pages are larger than this
 * server allows shows the page that starts at its first record, and says which pages hold the rest.
 */
function RefitNotice({
  asked,
  size,
  cap,
  start,
  end,
  total,
}: {
  asked: { first: number; last: number }
  size: number
  cap: number
  start: number
  end: number
  total: number | null
}) {
  const last = total === null ? asked.last : Math.min(asked.last, total)
  const firstPage = Math.floor((asked.first - 1) / size) + 1
  const lastPage = Math.floor((Math.max(last, asked.first) - 1) / size) + 1
  const shownEnd = total === null ? end : Math.min(end, total)
  return (
    <div role="status" className="my-2 basis-full rounded border border-amber-600 bg-amber-50 p-2 text-sm text-amber-950">
      This link named records {formatCount(asked.first)}–{formatCount(asked.last)}, {formatCount(asked.last - asked.first + 1)} a page.{' '}
      {/* The reason in its own words: over the cap, or a size the page does not offer (size=0 read as 1 blamed the cap). */}
      {asked.last - asked.first + 1 > cap
        ? `This server shows at most ${formatCount(cap)} records a page`
        : `Pages of ${formatCount(asked.last - asked.first + 1)} are not offered here (${pageSizesFor(cap).map(formatCount).join(', ')})`}
      , so this is records {formatCount(start)}–{formatCount(shownEnd)}
      {lastPage > firstPage
        ? `; pages ${formatCount(firstPage)}–${formatCount(lastPage)} hold all ${formatCount(last - asked.first + 1)} of them`
        : ''}
      .
    </div>
  )
}
