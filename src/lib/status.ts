/**
 * A message `status` begins with a numeric code and may carry text after it (spec §2.1, field
 * notes): `200` success, `400` error. The leading digits are the code; the whole string is kept.
 */
export type StatusLabel = 'Success' | 'Error' | 'Unknown'

export interface ParsedStatus {
  code: number | null
  label: StatusLabel
  full: string
}

export function parseStatus(raw: string | null | undefined): ParsedStatus {
  const full = typeof raw === 'string' ? raw.trim() : ''
  const m = /^(\d{1,3})(?!\d)/.exec(full)
  const code = m ? Number(m[1]) : null
  const label: StatusLabel = code === 200 ? 'Success' : code === 400 ? 'Error' : 'Unknown'
  return { code, label, full }
}

export function statusText(s: ParsedStatus): string {
  return s.label === 'Unknown' && s.code !== null ? `Unknown (${s.code})` : s.label
}
