// @vitest-environment happy-dom
import { RouterProvider, useSearch } from '@tanstack/react-router'
import { act, cleanup, render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it } from 'vitest'
import { useSetParams } from '../../lib/navigation'
import { historySearch, searchValidator } from '../../lib/route-params'
import { createHeldRouter } from '../../lib/test-router'
import { FiltersBar, filtersOf } from './filters-bar'

afterEach(cleanup)

const validateSearch = searchValidator(historySearch)

/** The history's filter bar on its own route, as the history page has it. */
function Page() {
  const search = useSearch({ from: '/numbers/$number' })
  const setParams = useSetParams('/numbers/$number')
  return <FiltersBar filters={filtersOf(search)} setParams={setParams} shown={1} loaded={2} />
}

describe('the history filters', () => {
  it('show a pick at once, before the router renders the page under it, and keep it when it has', async () => {
    const held = createHeldRouter({
      path: '/numbers/$number',
      validateSearch,
      hold: (s) => s.media === '1' || s.dir === 'inbound',
      component: Page,
      url: '/numbers/18323232323?tid=T',
    })
    render(<RouterProvider router={held.router} />)
    const user = userEvent.setup()
    const media = await screen.findByRole<HTMLInputElement>('checkbox', { name: 'Has media' })
    await user.click(media)
    await act(() => new Promise((r) => setTimeout(r, 30)))
    expect(held.router.history.location.search).toContain('media=1')
    expect(held.committed()?.media).toBeNull()
    expect(media.checked).toBe(true)
    act(() => {
      held.release()
    })
    await waitFor(() => {
      expect(held.committed()?.media).toBe('1')
    })
    expect(media.checked).toBe(true)

    const direction = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Direction' })
    await user.selectOptions(direction, 'inbound')
    await act(() => new Promise((r) => setTimeout(r, 30)))
    expect(held.committed()?.dir).toBeNull()
    expect(direction.value).toBe('inbound')
    act(() => {
      held.release()
    })
    await waitFor(() => {
      expect(held.committed()?.dir).toBe('inbound')
    })
    expect(direction.value).toBe('inbound')
    expect(new URLSearchParams(held.router.history.location.search).getAll('media')).toEqual(['1'])
  })
})
