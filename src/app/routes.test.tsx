// @vitest-environment happy-dom
import { createMemoryHistory } from '@tanstack/react-router'
import { describe, expect, it } from 'vitest'
import { matchPage, PAGES } from '../../contract/pages'
import { createAppRouter } from './routes'

/** The app's router (the real tree) at `url`, its first load done. */
async function at(url: string) {
  const router = createAppRouter({ history: createMemoryHistory({ initialEntries: [url] }) })
  await router.load()
  return router
}
const leaf = (router: Awaited<ReturnType<typeof at>>) => router.state.matches[router.state.matches.length - 1]!

describe('the route tree', () => {
  // The server reads contract/pages.ts to preload a page's code; the tree must agree on which page a path is.
  it.each([
    '/',
    '/numbers/18323232323',
    '/numbers/18323232323/',
    '/numbers/18323232323/thread',
    '/numbers/18323232323/messages/1500',
    '/numbers/1/messages/x',
    '/search',
    '/charts',
    '/index',
    '/signin',
    '/admin/users',
    '/admin/access-log',
    '/desk/needs-reply',
    '/desk/opt-outs',
    '/desk/customer',
    '/desk/quiet-hours',
    '/desk/segments',
    '/nope',
  ])('%s is the page contract/pages.ts names', async (url) => {
    const router = await at(url)
    const page = matchPage(url)
    const notFound = router.state.matches.some((m) => (m as { _notFound?: boolean })._notFound === true)
    expect(notFound).toBe(page === null)
    if (page !== null) expect(leaf(router).routeId).toBe(PAGES[page].path)
  })

  it.each(['/desk', '/desk/'])("%s, typed, opens the desk's first page, Needs reply", async (url) => {
    const router = await at(url)
    expect(matchPage(url)).toBeNull()
    expect(leaf(router).routeId).toBe(PAGES['needs-reply'].path)
    expect(router.state.location.pathname).toBe('/desk/needs-reply')
  })

  it('reads each query field by its schema, a bad one falling back on its own', async () => {
    const router = await at('/numbers/18323232323?tid=ABC&page=abc&size=7000&view=nope&dir=inbound&mark=12&asked=1001-1500')
    expect(leaf(router).search).toMatchObject({ tid: 'ABC', page: 1, size: 7000, view: 'log', dir: 'inbound', mark: 12, tz: 'local' })
    expect(leaf(router).search).toMatchObject({ asked: { first: 1001, last: 1500 } })
    expect(leaf(router).params).toEqual({ number: '18323232323' })
    const message = await at('/numbers/18323232323/messages/1500?tid=ABC')
    expect(leaf(message).params).toEqual({ number: '18323232323', ordinal: 1500 })
  })

  it("writes links in the URL's own words, defaults left out", async () => {
    const router = await at('/')
    const history = router.buildLocation({
      to: '/numbers/$number',
      params: { number: '18323232323' },
      search: { tid: 'ABC', page: 1, tz: 'local', view: 'conversation', party: '19175550142', mark: null },
    })
    expect(history.href).toBe('/numbers/18323232323?tid=ABC&view=conversation&party=19175550142')
    const search = router.buildLocation({ to: '/search', search: { numbers: ['18323232323', '15551234567'], status: 'error', q: 'a b&c' } })
    expect(search.href).toBe('/search?numbers=18323232323,15551234567&status=error&q=a+b%26c')
    const message = router.buildLocation({
      to: '/numbers/$number/messages/$ordinal',
      params: { number: '1 2', ordinal: 7 },
      search: { tz: 'utc' },
    })
    expect(message.href).toBe('/numbers/1%202/messages/7?tz=utc')
  })

  it('patches the query as the pages do: typed values in, words out, null back to the default', async () => {
    const router = await at('/numbers/18323232323?tid=ABC&dir=inbound')
    await router.navigate({
      to: '.',
      search: (prev: Record<string, unknown>) => ({ ...prev, page: 3, asked: { first: 101, last: 150 } }),
    } as never)
    expect(router.state.location.href).toBe('/numbers/18323232323?tid=ABC&dir=inbound&page=3&asked=101-150')
    expect(leaf(router).search).toMatchObject({ page: 3, dir: 'inbound', asked: { first: 101, last: 150 } })
    await router.navigate({
      to: '.',
      search: (prev: Record<string, unknown>) => ({ ...prev, page: null, dir: null, asked: null }),
    } as never)
    expect(router.state.location.href).toBe('/numbers/18323232323?tid=ABC')
  })
})
