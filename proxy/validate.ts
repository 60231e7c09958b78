import type { Operation } from '../contract/api.ts'
import { invalid } from './errors.ts'

/**
 * Validation of the browser's parameters before anything goes upstream. Each message names
 * the field. Only the operation's own parameters are forwarded; credentials and anything
 * else the browser sent are dropped (the proxy attaches its own, see forward.ts).
 */

export type Fields = Map<string, string[]>

const TID_MAX = 64

/**
 * Characters an opaque identifier has no business holding: C0 and C1 controls, zero-width
 * characters and joiners (U+200B–U+200F), bidi embeddings and overrides (U+202A–U+202E),
 * bidi isolates (U+2066–U+2069) and the BOM/zero-width no-break space (U+FEFF). They can only
 * be an attack on something downstream (log injection, Trojan Source style display tricks).
 */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/
/** A UTF-16 surrogate without its partner: not a character at all (JSON "\ud800" can carry one). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** One value per field; a value that is empty once trimmed counts as missing. */
function single(fields: Fields, name: string): string {
  const values = fields.get(name)
  if (values && values.length > 1) throw invalid(name, `${name} was sent more than once.`)
  const value = values?.[0]?.trim() ?? ''
  if (value === '') throw invalid(name, `${name} is required.`)
  return value
}

function identifier(fields: Fields, name: string): string {
  const value = single(fields, name)
  if (FORBIDDEN.test(value)) throw invalid(name, `${name} must not contain control, zero-width or text-direction characters.`)
  if (LONE_SURROGATE.test(value)) throw invalid(name, `${name} is not well-formed text.`)
  return value
}

function integer(fields: Fields, name: string): number {
  const raw = single(fields, name)
  if (!/^\d{1,9}$/.test(raw)) throw invalid(name, `${name} must be a whole number, got "${JSON.stringify(raw.slice(0, 20)).slice(1, -1)}".`)
  return Number(raw)
}

export function validate(op: Operation, fields: Fields, pageCap: number): Array<[string, string]> {
  switch (op) {
    case 'allownednumbers':
      return []
    case 'ownednumbers': {
      const type = single(fields, 'number_type')
      if (type !== 'local' && type !== 'tollfree') throw invalid('number_type', 'number_type must be "local" or "tollfree".')
      return [['number_type', type]]
    }
    case 'smshistory': {
      const number = identifier(fields, 'number')
      if (!/^\+?\d{4,15}$/.test(number)) throw invalid('number', 'number must be digits, with an optional leading +.')
      const tid = identifier(fields, 'tid')
      if (tid.length > TID_MAX) throw invalid('tid', `tid must be at most ${TID_MAX} characters.`)
      const start = integer(fields, 'history_start')
      const end = integer(fields, 'history_end')
      if (start < 1) throw invalid('history_start', 'history_start must be 1 or more (record numbers are 1-based).')
      if (end < start) throw invalid('history_end', 'history_end must not be less than history_start.')
      if (end - start + 1 > pageCap)
        throw invalid('history_end', `A history range may hold at most ${pageCap} records (history_end - history_start + 1).`)
      return [
        ['number', number],
        ['tid', tid],
        ['history_start', String(start)],
        ['history_end', String(end)],
      ]
    }
  }
}
