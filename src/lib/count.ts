/**
 * `12,345`: counts with thousands separators, the way every count in the app is written.
 * Hand-rolled on purpose: the first `toLocaleString`/`Intl.NumberFormat` call in a page loads
 * ICU number data and cost 14–26 ms in Chromium here, paid inside the render that first shows
 * the numbers table (see README, Performance).
 */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  const sign = n < 0 ? '-' : ''
  const [int = '0', frac] = Math.abs(n).toString().split('.')
  // Exponent notation (above 1e21) is left as it is: no count here gets near it.
  if (int.includes('e')) return String(n)
  let out = ''
  for (let i = int.length; i > 0; i -= 3) out = (i > 3 ? ',' : '') + int.slice(Math.max(0, i - 3), i) + out
  return sign + out + (frac ? `.${frac}` : '')
}

/** `about 3 min`, `1 h 5 min`, `under a minute`: a time left, rounded as a person would say it. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return 'unknown'
  if (seconds < 60) return 'under a minute'
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `about ${minutes} min`
  const h = Math.floor(minutes / 60)
  const m = minutes % 60
  if (h >= 48) return `about ${Math.round(h / 24)} days`
  return m === 0 ? `about ${h} h` : `about ${h} h ${m} min`
}

/**
 * `about 40 s`, `a few seconds`, `about 3 min`: how long until something starts. A wait in line
 * is short and watched as it shrinks, so under a minute it is said in seconds (to the nearest 5,
 * as an estimate deserves); longer ones as formatDuration says them.
 */
export function formatWait(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return 'unknown'
  if (seconds < 10) return 'a few seconds'
  if (seconds < 58) return `about ${Math.round(seconds / 5) * 5} s`
  return formatDuration(Math.max(60, seconds))
}

/** `1st`, `2nd`, `3rd`, `11th`, `22nd`: an English ordinal. */
export function formatOrdinal(n: number): string {
  const tens = Math.abs(n) % 100
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][Math.abs(n) % 10] ?? 'th')
  return `${formatCount(n)}${suffix}`
}

/** `840 KB`, `12.4 MB`: a file size in decimal units, as browsers' download lists write it. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return 'unknown size'
  if (bytes < 1000) return `${bytes} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = bytes
  let u = -1
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000
    u++
  }
  return `${v >= 100 ? Math.round(v) : Math.round(v * 10) / 10} ${units[u]}`
}
