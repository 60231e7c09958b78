import type { ReactNode } from 'react'

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="my-6 rounded border border-dashed border-slate-300 bg-white p-8 text-center">
      <p className="text-lg font-semibold text-slate-800">{title}</p>
      {children ? <div className="mt-1 text-sm text-slate-700">{children}</div> : null}
    </div>
  )
}

export function TableSkeleton({ rows = 8, label }: { rows?: number; label: string }) {
  return (
    <div role="status" aria-label={label} className="rounded border border-slate-200 bg-white p-2">
      <span className="sr-only">{label}</span>
      {/* One animated element, not one per bar (each animation start is a DOM event React
          dispatches), and only from the second second: a load that is over by then never pulses,
          and every frame of a pulse was compositor work competing with the data's arrival. */}
      <div className="animate-pulse [animation-delay:1s]" aria-hidden="true">
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className="my-2 h-6 rounded bg-slate-200" />
        ))}
      </div>
    </div>
  )
}
