import { useEffect, useRef, useSyncExternalStore } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

/**
 * A uPlot chart (about 50 KB, canvas, fast with a year of days). It is imported only by pages
 * loaded on demand (charts, quiet hours), so the library never reaches the entry chunk.
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
  return () => {
    observer.disconnect()
  }
}
const themeClass = () => document.documentElement.className

/**
 * The narrowest a chart is drawn: a 320 px phone leaves a chart in a bordered section about 260 px
 * (at 280 the chart widened the page past the screen).
 */
const MIN_WIDTH = 200

/** Bars of 70 % of a day's width, at most 40 px (a few days over a wide chart stay bars, not blocks). */
const BARS = uPlot.paths.bars?.({ size: [0.7, 40] })
const HALF_DAY_S = 43_200
const DAY_INCRS = [1, 2, 7, 14, 28, 56, 91, 182, 364, 728].map((d) => d * 86_400)
const TICK_DAY = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' })
const TICK_YEAR = new Intl.DateTimeFormat('en-US', { year: 'numeric', timeZone: 'UTC' })

/**
 * A day axis' tick labels (splits in seconds, each a day's UTC midnight): the day and month
 * ("Mar 1", "Mar 29"), the year alone when ticks are a year apart. uPlot's own labels named only
 * the month once ticks were 28 days apart, so two ticks in March both read "Mar".
 */
export function dayTickLabels(splits: readonly number[], incr: number): string[] {
  return splits.map((s) => (incr >= 364 * 86_400 ? TICK_YEAR : TICK_DAY).format(new Date(s * 1000)))
}

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
  /** `bars`: one bar per x (a count per day) instead of a line between the points. */
  series: Array<{ label: string; values: Array<number | null>; color: string; dash?: number[]; bars?: boolean }>
  yLabel: string
  /** The y axis starts at 0, so day-to-day noise on a small rate does not read as spikes. */
  fromZero?: boolean
  /** A click on the plot picks the nearest point (its index in `x`). */
  onPick?: (index: number) => void
}) {
  const box = useRef<HTMLDivElement>(null)
  const theme = useSyncExternalStore(subscribeTheme, themeClass)
  const bars = series.some((s) => s.bars)
  useEffect(() => {
    const el = box.current
    if (!el) return
    const width = Math.max(MIN_WIDTH, el.clientWidth)
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
        scales: {
          // Bars stand on days: half a day either side keeps the first and last whole.
          x: bars ? { time: true, range: (_u, min, max) => [min - HALF_DAY_S, max + HALF_DAY_S] } : { time: true },
          ...(fromZero ? { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } } : {}),
        },
        // Bars are per day: ticks on whole days (not 12am / 12pm over a short span).
        axes: [
          bars ? { ...axis(), incrs: DAY_INCRS, values: (_u, splits, _i, _space, incr) => dayTickLabels(splits, incr) } : axis(),
          { ...axis(), label: yLabel, size: 60 },
        ],
        // The y scale's floor and the points drawn, once drawn, for a reader (and a test) that cannot see the canvas.
        hooks: {
          draw: [
            (u) => {
              el.dataset.yMin = String(u.scales.y?.min ?? '')
              el.dataset.points = String(u.data[0].length)
            },
          ],
        },
        series: [
          {},
          ...series.map((s) =>
            s.bars
              ? { label: s.label, stroke: resolve(s.color), fill: resolve(s.color), width: 1, paths: BARS, points: { show: false } }
              : { label: s.label, stroke: resolve(s.color), width: 2, dash: s.dash, spanGaps: false },
          ),
        ],
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
    const resize = new ResizeObserver(() => {
      plot.setSize({ width: Math.max(MIN_WIDTH, el.clientWidth), height: 260 })
    })
    resize.observe(el)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [x, series, yLabel, theme, fromZero, onPick, bars])
  return (
    <figure className="m-0">
      <div ref={box} role="img" aria-label={`${label}. The same figures are in the table that follows.`} className="w-full" />
      <figcaption className="mt-1 flex flex-wrap gap-4 text-sm">
        {series.map((s) => (
          <span key={s.label} className="flex items-center gap-1">
            <span
              aria-hidden="true"
              className={s.bars ? 'inline-block h-3 w-3 rounded-sm' : 'inline-block h-0.5 w-6'}
              style={{ background: s.color, borderTop: s.dash ? `2px dashed ${s.color}` : undefined }}
            />
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  )
}
