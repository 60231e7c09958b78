import type { ReactNode } from 'react'

/**
 * A table wider than a phone in a region of its own that scrolls sideways, so the page does not:
 * reached with Tab and scrolled with the arrow keys. `relative` keeps a visually hidden header
 * inside it (positioned against the page, it widened the page past a phone's width). On paper,
 * which cannot scroll, nothing is clipped. `label` names it, saying that it scrolls.
 */
export function SidewaysRegion({ label, className = '', children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className={`relative max-w-full overflow-x-auto print:overflow-visible ${className}`}
    >
      {children}
    </div>
  )
}
