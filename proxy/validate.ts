import { checkParams, type Operation } from '../contract/api.ts'
import { invalid } from './errors.ts'

/**
 * Validation of the browser's parameters before anything goes upstream, by the wire contract's
 * rules (contract/api.ts `OPERATION_PARAMS`/`checkParams`). Each message names the field. Only
 * the operation's own parameters are forwarded; credentials and anything else the browser sent
 * are dropped (the proxy attaches its own, see forward.ts).
 */

export type Fields = Map<string, string[]>

export function validate(op: Operation, fields: Fields, pageCap: number): Array<[string, string]> {
  const result = checkParams(op, (name) => fields.get(name), pageCap)
  if (!result.ok) throw invalid(result.field, result.message)
  return result.params
}
