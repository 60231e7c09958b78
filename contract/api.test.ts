import { describe, expect, it } from 'vitest'
import { checkParams, OPERATION_PARAMS, OPERATIONS } from './api.ts'

const fields = (o: Record<string, string | string[]>) => (name: string) => {
  const v = o[name]
  return v === undefined ? undefined : Array.isArray(v) ? v : [v]
}

describe('the contract’s parameter rules', () => {
  it('has a parameter list for every operation', () => {
    expect(Object.keys(OPERATION_PARAMS).sort()).toEqual([...OPERATIONS].sort())
  })

  it('keeps only the operation’s own parameters, in the contract’s order, with positions normalised', () => {
    const r = checkParams(
      'smshistory',
      fields({ auth_token: 'x', history_end: '0050', sys_id: 'y', tid: ' T1 ', history_start: '1', number: '+18323232323' }),
      1000,
    )
    expect(r).toEqual({
      ok: true,
      params: [
        ['number', '+18323232323'],
        ['tid', 'T1'],
        ['history_start', '1'],
        ['history_end', '50'],
      ],
    })
    expect(checkParams('allownednumbers', fields({ sys_id: 'x' }), 1000)).toEqual({ ok: true, params: [] })
  })

  it.each([
    ['ownednumbers', { number_type: 'mobile' }, 'number_type', 'number_type must be "local" or "tollfree".'],
    ['ownednumbers', { number_type: ['local', 'local'] }, 'number_type', 'number_type was sent more than once.'],
    ['smshistory', { number: '1832', tid: 'a\u202eb', history_start: '1', history_end: '1' }, 'tid', /text-direction/],
    ['smshistory', { number: '1832', tid: 'ab', history_start: '1', history_end: '   ' }, 'history_end', 'history_end is required.'],
    ['smshistory', { number: '1832', tid: '\ud800', history_start: '1', history_end: '1' }, 'tid', 'tid is not well-formed text.'],
    ['smshistory', { number: '1832', tid: 'ab', history_start: '5', history_end: '2000' }, 'history_end', /at most 1000 records/],
  ] as const)('%s %j fails on its field', (op, given, field, message) => {
    const r = checkParams(op, fields(given as Record<string, string | string[]>), 1000)
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.field).toBe(field)
    if (typeof message === 'string') expect(r.message).toBe(message)
    else expect(r.message).toMatch(message)
  })
})
