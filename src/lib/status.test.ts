import { describe, expect, it } from 'vitest'
import { parseStatus, statusText } from './status'

describe('parseStatus', () => {
  it('reads the published bracketed form', () => {
    expect(parseStatus('200 [Possible status and meaning: 200 = success, 400 = error]')).toMatchObject({ code: 200, label: 'Success' })
    expect(parseStatus('400 [Possible status and meaning: 200 = success, 400 = error]')).toMatchObject({ code: 400, label: 'Error' })
  })
  it('reads bare codes and codes with other text', () => {
    expect(parseStatus('200').label).toBe('Success')
    expect(parseStatus('400 Undeliverable').label).toBe('Error')
  })
  it('shows other codes as Unknown with the code', () => {
    const s = parseStatus('503 Carrier busy')
    expect(s).toMatchObject({ code: 503, label: 'Unknown', full: '503 Carrier busy' })
    expect(statusText(s)).toBe('Unknown (503)')
  })
  it('handles no code at all', () => {
    expect(parseStatus('pending')).toMatchObject({ code: null, label: 'Unknown' })
    expect(statusText(parseStatus(null))).toBe('Unknown')
    expect(parseStatus('2000 x').code).toBeNull()
  })
})

describe('parseStatus reads codes as the server does', () => {
  it('takes exactly three digits: one or two digits are no code', () => {
    expect(parseStatus('20 ok')).toMatchObject({ code: null, label: 'Unknown' })
    expect(parseStatus('4 rejected').code).toBeNull()
    expect(parseStatus(' 400 rejected')).toMatchObject({ code: 400, label: 'Error' })
  })
})
