// @vitest-environment happy-dom
import { RouterProvider, useNavigate, useSearch } from '@tanstack/react-router'
import { act, cleanup, render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it } from 'vitest'
import { createHeldRouter } from '../../lib/test-router'
import { ColumnToggles } from './column-toggles'

afterEach(cleanup)

const COLUMNS = [
  { id: 'tid', label: 'tid' },
  { id: 'webhook', label: 'Webhook' },
  { id: 'dlr', label: 'dlr' },
]
const validateSearch = (input: Record<string, unknown>) => (typeof input.hide === 'string' && input.hide ? { hide: input.hide } : {})
const hiddenOf = (search: { hide?: string }) => new Set(search.hide ? search.hide.split(',') : [])

function Page() {
  // The test router is not the app's registered tree: its search is read untyped and checked here.
  const search = validateSearch(useSearch({ strict: false }))
  const navigate = useNavigate()
  return (
    <ColumnToggles
      columns={COLUMNS}
      hidden={hiddenOf(search)}
      onChange={(next) => navigate({ to: '.', search: next.size ? { hide: [...next].join(',') } : {}, replace: true } as never)}
    />
  )
}

describe('the column toggles', () => {
  it('count two quick clicks, both shown at once, while the first is still on its way to the URL', async () => {
    const held = createHeldRouter({ path: '/', validateSearch, hold: (s) => s.hide !== undefined, component: Page, url: '/' })
    render(<RouterProvider router={held.router} />)
    const user = userEvent.setup()
    const box = (name: string) => screen.getByRole<HTMLInputElement>('checkbox', { name })
    await screen.findByRole('checkbox', { name: 'tid' })
    await user.click(box('tid'))
    await user.click(box('Webhook'))
    await act(() => new Promise((r) => setTimeout(r, 30)))
    expect(held.committed()?.hide).toBeUndefined()
    expect([box('tid').checked, box('Webhook').checked, box('dlr').checked]).toEqual([false, false, true])
    act(() => {
      held.release()
    })
    await waitFor(() => {
      expect(held.committed()?.hide).toBe('tid,webhook')
    })
    expect([box('tid').checked, box('Webhook').checked, box('dlr').checked]).toEqual([false, false, true])
  })

  it('close as a menu does: Escape (focus back on Columns), a click outside, Tab out of it', async () => {
    render(
      <>
        <ColumnToggles columns={COLUMNS} hidden={new Set()} onChange={() => undefined} />
        <button type="button">elsewhere</button>
      </>,
    )
    const user = userEvent.setup()
    const summary = screen.getByText('Columns')
    const details = summary.closest('details')!
    await user.click(summary)
    expect(details.open).toBe(true)
    await user.click(screen.getByRole('checkbox', { name: 'tid' }))
    expect(details.open).toBe(true)
    await user.keyboard('{Escape}')
    expect(details.open).toBe(false)
    expect(document.activeElement).toBe(summary)
    await user.click(summary)
    await user.click(screen.getByRole('button', { name: 'elsewhere' }))
    expect(details.open).toBe(false)
    await user.click(summary)
    screen.getByRole('checkbox', { name: 'dlr' }).focus()
    await user.tab()
    expect(details.open).toBe(false)
  })
})
