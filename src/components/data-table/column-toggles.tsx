import { useEffect, useRef } from 'react'
import { useUrlBound } from '../../lib/use-url-bound'

/**
 * Show/hide columns: a disclosure with a checkbox per hideable column. `hidden` is the URL's;
 * a click shows at once (useUrlBound) and `onChange` gets the whole set, made from what is shown,
 * so two quick clicks both count. It closes as a menu does: Escape (focus back on its button), a
 * click or a tap outside it, and Tab moving focus out of it.
 */
export function ColumnToggles({
  columns,
  hidden,
  onChange,
}: {
  columns: ReadonlyArray<{ id: string; label: string }>
  hidden: ReadonlySet<string>
  onChange: (hidden: ReadonlySet<string>) => unknown
}) {
  const [shown, setShown] = useUrlBound(hidden, onChange)
  const toggle = (id: string, visible: boolean) => {
    const next = new Set(shown)
    if (visible) next.delete(id)
    else next.add(id)
    setShown(next)
  }
  const box = useRef<HTMLDetailsElement>(null)
  useEffect(() => {
    const outside = (e: PointerEvent) => {
      const el = box.current
      if (el?.open && !el.contains(e.target as Node)) el.open = false
    }
    document.addEventListener('pointerdown', outside)
    return () => {
      document.removeEventListener('pointerdown', outside)
    }
  }, [])
  return (
    <details
      ref={box}
      className="relative"
      data-print="hide"
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !e.currentTarget.open) return
        e.preventDefault()
        e.currentTarget.open = false
        e.currentTarget.querySelector('summary')?.focus()
      }}
      onBlur={(e) => {
        const to = e.relatedTarget
        if (to instanceof Node && !e.currentTarget.contains(to)) e.currentTarget.open = false
      }}
    >
      <summary className="btn cursor-pointer list-none">Columns</summary>
      <fieldset className="absolute right-0 z-20 mt-1 w-48 rounded border border-slate-300 bg-white p-2 shadow">
        <legend className="sr-only">Shown columns</legend>
        {columns.map((c) => (
          <label key={c.id} className="flex items-center gap-2 py-0.5 text-sm">
            <input
              type="checkbox"
              checked={!shown.has(c.id)}
              onChange={(e) => {
                toggle(c.id, e.target.checked)
              }}
            />
            {c.label}
          </label>
        ))}
      </fieldset>
    </details>
  )
}
