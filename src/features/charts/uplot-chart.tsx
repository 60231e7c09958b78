import { useEffect, useRef } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

/**
 * A uPlot chart (about 50 KB, canvas, fast with a year of days). It is imported only by the
 * charts page, which is itself loaded on demand, so the library never reaches the entry chunk.
 * The canvas is a picture for sighted users; the figures are in the table next to it.
 */
export function UPlotChart({ label, x, series, yLabel }: { label: string; x: number[]; series: Array<{ label: string; values: Array<number | null>; color: string; dash?: number[] }>; yLabel: string }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = box.current
    if (!el) return
    const width = Math.max(280, el.clientWidth)
    const plot = new uPlot(
      {
        width,
        height: 260,
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        scales: { x: { time: true } },
        axes: [{}, { label: yLabel, size: 60 }],
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, dash: s.dash, spanGaps: false }))],
      },
      [x, ...series.map((s) => s.values)],
      el,
    )
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 260 }))
    resize.observe(el)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [x, series, yLabel])
  return (
    <figure className="m-0">
      <div ref={box} role="img" aria-label={`${label}. The same figures are in the table that follows.`} className="w-full" />
      <figcaption className="mt-1 flex flex-wrap gap-4 text-sm">
        {series.map((s) => (
          <span key={s.label} className="flex items-center gap-1">
            <span aria-hidden="true" className="inline-block h-0.5 w-6" style={{ background: s.color, borderTop: s.dash ? `2px dashed ${s.color}` : undefined }} />
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  )
}
