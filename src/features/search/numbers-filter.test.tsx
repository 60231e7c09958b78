// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, expect, test } from 'vitest'
import { parseStatus } from '../../api/index-status'
import { formatPhone } from '../../lib/phone'
import { searchSearch } from '../../lib/route-params'
import { SearchForm } from './search-form'

afterEach(cleanup)

const whole = { state: 'idle', indexed: 36, upstreamTotal: 36, lastSyncedAt: '2026-11-22T07:10:51Z' }
const TWO = '17202951888'

test('picking a number in Search picks its further lines too (the histories of second tids it is listed under), each a chip of its own', () => {
  const { numbers } = parseStatus({
    enabled: true,
    numbers: [
      { number: '18005550100', tid: 'B', ...whole },
      { number: TWO, tid: 'OWN', ...whole, otherTids: ['SECOND'], lineTids: ['SECOND'] },
      { number: `${TWO}~2`, tid: 'SECOND', ...whole, indexed: 700, upstreamTotal: 700, lineOf: TWO },
    ],
  })
  const sent: unknown[] = []
  render(
    <SearchForm
      search={searchSearch.parse({})}
      numbers={numbers}
      setParams={(p: unknown) => {
        sent.push(p)
        return Promise.resolve()
      }}
    />,
  )
  const box = screen.getByRole('combobox', { name: 'Numbers' })
  fireEvent.change(box, { target: { value: '720295' } })
  // Both are offered, the line written as people read it.
  const options = within(screen.getByRole('listbox', { name: 'Numbers' })).getAllByRole('option')
  expect(options.map((o) => o.textContent)).toEqual([
    expect.stringContaining(formatPhone(TWO)),
    expect.stringContaining(`${formatPhone(TWO)} · line 2`),
  ])
  fireEvent.click(options[0]!)
  expect(sent.at(-1)).toEqual({ numbers: [TWO, `${TWO}~2`] })
  const chips = within(screen.getByRole('list', { name: 'Numbers picked' })).getAllByRole('button')
  expect(chips.map((c) => c.getAttribute('aria-label'))).toEqual([`Remove ${formatPhone(TWO)}`, `Remove ${formatPhone(TWO)} · line 2`])
})
