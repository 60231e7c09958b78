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
