import { useState } from 'react'
import { pageCount, rangeText } from '../../lib/range'
import { formatCount } from '../../lib/count'

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
  onSize: (size: number) => void
}) {
  const pages = total === null ? null : pageCount(total, size)
  const [jump, setJump] = useState('')
  const last = pages ?? page
  return (
    <nav aria-label="Pagination" className="flex flex-wrap items-center gap-2 py-2">
      <label className="flex items-center gap-1 text-sm">
        Rows per page
        <select className="input" value={size} onChange={(e) => onSize(Number(e.target.value))}>
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
        <button type="button" className="btn" onClick={() => onPage(1)} disabled={page <= 1} aria-label="First page">
          «
        </button>
        <button type="button" className="btn" onClick={() => onPage(page - 1)} disabled={page <= 1} aria-label="Previous page">
          ‹
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => onPage(page + 1)}
          disabled={pages !== null && page >= pages}
          aria-label="Next page"
        >
          ›
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => onPage(last)}
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
            onChange={(e) => setJump(e.target.value)}
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
  )
}
