import { invalid } from './errors.ts'
import type { Operation } from './forward.ts'

/**
 * Validation of the browser's parameters before anything goes upstream. Each message names
 * the field. Only the operation's own parameters are forwarded; credentials and anything
 * else the browser sent are dropped (the proxy attaches its own, see forward.ts).
 */

export type Fields = Map<string, string[]>

const TID_MAX = 64

function single(fields: Fields, name: string): string {
  const values = fields.get(name)
  if (!values || values.length === 0 || values[0] === '') throw invalid(name, `${name} is required.`)
  if (values.length > 1) throw invalid(name, `${name} was sent more than once.`)
  return values[0]!.trim()
}

function integer(fields: Fields, name: string): number {
  const raw = single(fields, name)
  if (!/^\d{1,9}$/.test(raw)) throw invalid(name, `${name} must be a whole number, got "${raw.slice(0, 20)}".`)
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
      const number = single(fields, 'number')
      if (!/^\+?\d{4,15}$/.test(number)) throw invalid('number', 'number must be digits, with an optional leading +.')
      const tid = single(fields, 'tid')
      if (tid.length > TID_MAX) throw invalid('tid', `tid must be at most ${TID_MAX} characters.`)
      // Control characters in an opaque id can only be an attack on something downstream.
      if (/[\u0000-\u001f\u007f]/.test(tid)) throw invalid('tid', 'tid must not contain control characters.')
      const start = integer(fields, 'history_start')
      const end = integer(fields, 'history_end')
      if (start < 1) throw invalid('history_start', 'history_start must be 1 or more (record numbers are 1-based).')
      if (end < start) throw invalid('history_end', 'history_end must not be less than history_start.')
      if (end - start + 1 > pageCap) throw invalid('history_end', `A history range may hold at most ${pageCap} records (history_end - history_start + 1).`)
      return [
        ['number', number],
        ['tid', tid],
        ['history_start', String(start)],
        ['history_end', String(end)],
      ]
    }
  }
}
