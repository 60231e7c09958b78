import { formatCount } from './count'

/**
 * Paging arithmetic for /api/smshistory: 1-based inclusive record ranges (field notes:
 * start=1,end=100 is answered with 100 requested). Page n of size s is (n-1)·s+1 … n·s,
 * with the end clamped to the total once the total is known.
 */
export const PAGE_SIZES = [25, 50, 100, 250, 500, 1000] as const

export function pageRange(page: number, size: number, total?: number | null): { start: number; end: number } {
  const start = (page - 1) * size + 1
  let end = page * size
  if (total !== undefined && total !== null && total >= start) end = Math.min(end, total)
  return { start, end }
}

export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size))
}

export function clampPage(page: number, total: number | null | undefined, size: number): number {
  const p = Number.isFinite(page) && page >= 1 ? Math.floor(page) : 1
  return total === null || total === undefined ? p : Math.min(p, pageCount(total, size))
}

/** `51–100 of 2,345` */
export function rangeText(start: number, end: number, total: number): string {
  if (total === 0) return '0 of 0'
  return `${formatCount(start)}–${formatCount(Math.min(end, total))} of ${formatCount(total)}`
}

/** The rows-per-page choices the server allows: never above HISTORY_PAGE_CAP (the cap itself is offered when it is not a round size). */
export function pageSizesFor(cap: number): number[] {
  const sizes: number[] = PAGE_SIZES.filter((s) => s <= cap)
  if (!sizes.includes(cap) && cap < 1000) sizes.push(cap)
  return sizes.sort((a, b) => a - b)
}

/** A page size within the choices: the asked one if allowed, else the largest allowed below it. */
export function fitSize(size: number, cap: number): number {
  const sizes = pageSizesFor(cap)
  if (sizes.includes(size)) return size
  return sizes.filter((s) => s <= size).at(-1) ?? sizes[0] ?? Math.max(1, cap)
}

/**
 * A link's page and page size fitted to the sizes this server allows (HISTORY_PAGE_CAP): the
 * page that holds the first record the link named, so `size=500&page=3` under a cap of 100 is
 * page 11 of 100 (records 1,001–1,100), never page 3 of 100 (records 201–300). `asked` is the
 * range the link named, for the notice; null when the link's size is allowed as it is. A link
 * that marks one record of its page (from search, go to date) opens at the page holding that one.
 */
export function refitLink(
  page: number,
  askedSize: number,
  cap: number,
  mark: number | null = null,
): { page: number; size: number; asked: { first: number; last: number } | null } {
  const size = fitSize(askedSize, cap)
  if (size === askedSize) return { page, size, asked: null }
  const first = (page - 1) * askedSize + 1
  const last = page * askedSize
  const anchor = mark !== null && mark >= first && mark <= last ? mark : first
  return { page: Math.floor((anchor - 1) / size) + 1, size, asked: { first, last } }
}
