import { useEffect, useRef, useSyncExternalStore } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

/**
 * A uPlot chart (about 50 KB, canvas, fast with a year of days). It is imported only by the
 * charts page, which is itself loaded on demand, so the library never reaches the entry chunk.
 * The canvas is a picture for sighted users; the figures are in the table next to it.
 */
/** A canvas cannot read CSS variables: colours given as `var(--name)` are resolved for the theme in force. */
function resolve(color: string): string {
  const m = /^var\((--[\w-]+)\)$/.exec(color)
  return m?.[1] ? getComputedStyle(document.documentElement).getPropertyValue(m[1]).trim() || '#000' : color
}

/** The theme class on <html> (src/lib/theme.ts sets it): charts redraw in the new colours when it changes. */
function subscribeTheme(onChange: () => void) {
  const observer = new MutationObserver(onChange)
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] })
  return () => observer.disconnect()
}
const themeClass = () => document.documentElement.className

export function UPlotChart({
  label,
  x,
  series,
  yLabel,
  fromZero = false,
  onPick,
}: {
  label: string
  x: number[]
  series: Array<{ label: string; values: Array<number | null>; color: string; dash?: number[] }>
  yLabel: string
  /** The y axis starts at 0, so day-to-day noise on a small rate does not read as spikes. */
  fromZero?: boolean
  /** A click on the plot picks the nearest point (its index in `x`). */
  onPick?: (index: number) => void
}) {
  const box = useRef<HTMLDivElement>(null)
  const theme = useSyncExternalStore(subscribeTheme, themeClass)
  useEffect(() => {
    const el = box.current
    if (!el) return
    const width = Math.max(280, el.clientWidth)
    // Axis text and grid in the theme's own text and rule colours (uPlot's default is black).
    const axis = () => ({
      stroke: resolve('var(--color-slate-700)'),
      grid: { stroke: resolve('var(--color-slate-200)'), width: 1 },
      ticks: { stroke: resolve('var(--color-slate-300)'), width: 1 },
    })
    const plot = new uPlot(
      {
        width,
        height: 260,
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        // Each bucket's x is its day (of the zone counted in) written as that date's UTC midnight:
        // the axis reads it back in UTC so it names that date, not the browser's local instant of
        // it (the day before, west of Greenwich).
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, ...(fromZero ? { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } } : {}) },
        axes: [axis(), { ...axis(), label: yLabel, size: 60 }],
        // The y scale's floor, once drawn, for a reader (and a test) that cannot see the canvas.
        hooks: { draw: [(u) => void (el.dataset.yMin = String(u.scales.y?.min ?? ''))] },
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: resolve(s.color), width: 2, dash: s.dash, spanGaps: false }))],
      },
      [x, ...series.map((s) => s.values)],
      el,
    )
    const pick = () => {
      const i = plot.cursor.idx
      if (onPick && i !== null && i !== undefined) onPick(i)
    }
    plot.over.addEventListener('click', pick)
    if (onPick) plot.over.style.cursor = 'pointer'
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: 260 }))
    resize.observe(el)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [x, series, yLabel, theme, fromZero, onPick])
  return (
    <figure className="m-0">
      <div ref={box} role="img" aria-label={`${label}. The same figures are in the table that follows.`} className="w-full" />
      <figcaption className="mt-1 flex flex-wrap gap-4 text-sm">
        {series.map((s) => (
          <span key={s.label} className="flex items-center gap-1">
            <span
              aria-hidden="true"
              className="inline-block h-0.5 w-6"
              style={{ background: s.color, borderTop: s.dash ? `2px dashed ${s.color}` : undefined }}
            />
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  )
}
