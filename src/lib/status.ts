import { STATUS_ERROR, STATUS_SUCCESS, upstreamStatusCode } from '../../contract/upstream-values'

/**
 * A message `status` begins with a numeric code and may carry text after it (spec §2.1, field
 * notes): `200` success, `400` error. The three leading digits are the code; the whole string is kept.
 */
export type StatusLabel = 'Success' | 'Error' | 'Unknown'

export interface ParsedStatus {
  code: number | null
  label: StatusLabel
  full: string
}

export function parseStatus(raw: string | null | undefined): ParsedStatus {
  const full = typeof raw === 'string' ? raw.trim() : ''
  // Exactly three leading digits, as the server's index reads them (contract/upstream-values.ts).
  const code = upstreamStatusCode(full)
  const label: StatusLabel = code === STATUS_SUCCESS ? 'Success' : code === STATUS_ERROR ? 'Error' : 'Unknown'
  return { code, label, full }
}

export function statusText(s: ParsedStatus): string {
  return s.label === 'Unknown' && s.code !== null ? `Unknown (${s.code})` : s.label
}
