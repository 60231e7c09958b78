/** Show/hide columns: a disclosure with a checkbox per hideable column. */
export function ColumnToggles({
  columns,
  hidden,
  onToggle,
}: {
  columns: ReadonlyArray<{ id: string; label: string }>
  hidden: ReadonlySet<string>
  onToggle: (id: string, visible: boolean) => void
}) {
  return (
    <details className="relative" data-print="hide">
      <summary className="btn cursor-pointer list-none">Columns</summary>
      <fieldset className="absolute right-0 z-20 mt-1 w-48 rounded border border-slate-300 bg-white p-2 shadow">
        <legend className="sr-only">Shown columns</legend>
        {columns.map((c) => (
          <label key={c.id} className="flex items-center gap-2 py-0.5 text-sm">
            <input type="checkbox" checked={!hidden.has(c.id)} onChange={(e) => onToggle(c.id, e.target.checked)} />
            {c.label}
          </label>
        ))}
      </fieldset>
    </details>
  )
}
