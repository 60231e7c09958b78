import { useUrlBound } from '../../lib/use-url-bound'

/**
 * Show/hide columns: a disclosure with a checkbox per hideable column. `hidden` is the URL's;
 * a click shows at once (useUrlBound) and `onChange` gets the whole set, made from what is shown,
 * so two quick clicks both count.
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
  return (
    <details className="relative" data-print="hide">
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
