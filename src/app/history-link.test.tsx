// @vitest-environment happy-dom
import { createMemoryHistory, RouterContextProvider } from '@tanstack/react-router'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { HistoryLink, historyHref } from '../features/numbers/history-link'
import { createAppRouter } from './routes'

afterEach(cleanup)

async function at(url: string) {
  const router = createAppRouter({ history: createMemoryHistory({ initialEntries: [url] }) })
  await router.load()
  return router
}

function renderLink(router: Awaited<ReturnType<typeof at>>, number: string, tid: string) {
  render(
    <RouterContextProvider router={router}>
      <HistoryLink number={number} tid={tid}>
        history of {number}
      </HistoryLink>
    </RouterContextProvider>,
  )
  return screen.getByRole('link', { name: `history of ${number}` })
}

describe("the numbers table's history link", () => {
  it.each([
    ['18323232323', 'PUHMGWS98301'],
    ['+447700900123', 'ABC'],
    ['1 2', 'a b&c=d'],
    ['a/b?c#d', '12345'],
    ['15551234567', ''],
  ])('%s (tid %s) has the address the router writes', async (number, tid) => {
    const router = await at('/')
    expect(historyHref(number, tid)).toBe(router.buildLocation({ to: '/numbers/$number', params: { number }, search: { tid } }).href)
  })

  it('navigates inside the app on a plain click, to the page the address names', async () => {
    const router = await at('/?q=832')
    const link = renderLink(router, '18323232323', 'PUHMGWS98301')
    expect(link.getAttribute('href')).toBe('/numbers/18323232323?tid=PUHMGWS98301')
    const click = new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 })
    fireEvent(link, click)
    expect(click.defaultPrevented).toBe(true)
    await router.load()
    expect(router.state.location.href).toBe('/numbers/18323232323?tid=PUHMGWS98301')
  })

  it.each([{ ctrlKey: true }, { metaKey: true }, { shiftKey: true }, { button: 1 }])(
    'leaves a click with %o to the browser',
    async (init) => {
      const router = await at('/?q=832')
      const link = renderLink(router, '18323232323', 'PUHMGWS98301')
      const click = new MouseEvent('click', { bubbles: true, cancelable: true, button: 0, ...init })
      fireEvent(link, click)
      expect(click.defaultPrevented).toBe(false)
      expect(router.state.location.href).toBe('/?q=832')
    },
  )
})
