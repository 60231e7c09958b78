import { useRef, type KeyboardEvent } from 'react'
import { useUrlBound } from '../lib/use-url-bound'

/**
 * WAI-ARIA tabs with automatic activation: arrows, Home and End move and select. The tab picked
 * shows as selected at once, before the URL that holds it commits (useUrlBound).
 */
export function Tabs<T extends string>({
  tabs,
  value,
  onChange,
  label,
  panelId,
}: {
  tabs: ReadonlyArray<{ id: T; label: string }>
  value: T
  onChange: (id: T) => unknown
  label: string
  panelId: string
}) {
  const [shown, pick] = useUrlBound(value, onChange)
  const refs = useRef<Array<HTMLButtonElement | null>>([])
  const onKey = (e: KeyboardEvent, index: number) => {
    let next = -1
    if (e.key === 'ArrowRight') next = (index + 1) % tabs.length
    else if (e.key === 'ArrowLeft') next = (index - 1 + tabs.length) % tabs.length
    else if (e.key === 'Home') next = 0
    else if (e.key === 'End') next = tabs.length - 1
    if (next < 0) return
    e.preventDefault()
    const tab = tabs[next]
    if (!tab) return
    pick(tab.id)
    refs.current[next]?.focus()
  }
  return (
    <div role="tablist" aria-label={label} className="flex gap-1 border-b border-slate-300">
      {tabs.map((t, i) => {
        const selected = t.id === shown
        return (
          <button
            key={t.id}
            ref={(el) => {
              refs.current[i] = el
            }}
            id={`tab-${t.id}`}
            role="tab"
            type="button"
            aria-selected={selected}
            aria-controls={panelId}
            tabIndex={selected ? 0 : -1}
            onClick={() => {
              pick(t.id)
            }}
            onKeyDown={(e) => {
              onKey(e, i)
            }}
            className={`-mb-px rounded-t border px-4 py-2 text-sm font-medium ${selected ? 'border-slate-300 border-b-white bg-white text-blue-800' : 'border-transparent text-slate-700 hover:text-slate-900'}`}
          >
            {t.label}
          </button>
        )
      })}
    </div>
  )
}
