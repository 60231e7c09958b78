import type { ReactNode, Ref } from 'react'

/**
 * The box the rows scroll in, table or cards: a named region that takes focus, so keyboard users
 * can scroll it; on paper it grows to hold every row (data-print="expand").
 */
export function ScrollRegion({
  ref,
  label,
  height,
  children,
}: {
  ref: Ref<HTMLDivElement>
  label: string
  height: string
  children: ReactNode
}) {
  return (
    <div
      ref={ref}
      data-print="expand"
      className="relative overflow-auto rounded border border-slate-200 bg-white"
      style={{ maxHeight: height }}
      tabIndex={0}
      role="region"
      aria-label={`${label}, scrollable`}
    >
      {children}
    </div>
  )
}
