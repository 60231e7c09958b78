// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, expect, test } from 'vitest'
import type { OwnedNumber } from '../../api/numbers'
import { auditNumbers, type AuditFilter } from './audit'
import { AuditSummary } from './audit-summary'

afterEach(cleanup)

const owned = (i: number, webhook: string | null, dlr: string | null): OwnedNumber => ({
  number: `1832323232${i}`,
  tid: `T${i}`,
  type: 'local',
  country: 'US',
  webhook,
  dlr,
})

const W = 'https://hooks.example.com/in'
const list = [owned(0, W, null), owned(1, W, null), owned(2, 'http://hooks.example.com/in', 'https://hooks.example.com/dlr')]

test('before the audit lands, the disclosure says it is checking and loads nothing', () => {
  render(<AuditSummary audit={null} total={null} active={[]} onChange={() => undefined} />)
  const details = screen.getByText('Findings by kind, and endpoints').closest('details')!
  expect(details.textContent).toContain('Checking callback URLs…')
  expect(within(details).queryByRole('list', { name: 'Findings' })).toBeNull()
})

test('once the audit is in, the disclosure (loaded apart) lists each finding with its advice and the endpoints, and a finding is a filter', async () => {
  const picks: Array<readonly AuditFilter[]> = []
  const audit = auditNumbers(list, (n) => n.number)
  const onChange = (next: readonly AuditFilter[]) => picks.push(next)
  const { rerender } = render(<AuditSummary audit={audit} total={list.length} active={[]} onChange={onChange} />)
  const findings = await screen.findByRole('list', { name: 'Findings' })
  const missing = within(findings).getByRole('button', { name: /dlr: Missing/ })
  expect(missing.textContent).toContain('2 numbers send delivery reports nowhere')
  expect(findings.textContent).toContain('Why it matters:')
  // Problems come before what is only worth a look, whatever the counts.
  const labels = within(findings)
    .getAllByRole('button')
    .map((b) => b.textContent)
  expect(labels[labels.length - 1]).toMatch(/^Worth a look/)
  expect(screen.getByRole('heading', { name: '2 distinct webhook endpoints' })).toBeTruthy()
  expect(screen.getByRole('heading', { name: '2 distinct dlr endpoints' })).toBeTruthy()
  await userEvent.setup().click(missing)
  expect(picks).toEqual([['dlr.missing']])
  // The URL (here the caller) now has it: the chip shows pressed.
  rerender(<AuditSummary audit={audit} total={list.length} active={['dlr.missing']} onChange={onChange} />)
  expect(
    within(findings)
      .getByRole('button', { name: /dlr: Missing/ })
      .getAttribute('aria-pressed'),
  ).toBe('true')
})
