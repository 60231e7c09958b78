// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query'
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { TestRouter } from '../lib/test-router'
import { useFirstPageShown } from './first-page-shown'

afterEach(cleanup)

const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)))

/** A page whose one query answers when the test says, beside the shell's extras. */
function setup(answer: Promise<string>, capMs?: number) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  function Page() {
    const q = useQuery({ queryKey: ['page'], queryFn: () => answer })
    return <p>{q.data ?? 'loading'}</p>
  }
  function Shell() {
    const extras = useFirstPageShown(capMs)
    return (
      <>
        <Page />
        {extras ? <p>extras</p> : null}
      </>
    )
  }
  render(
    <QueryClientProvider client={client}>
      <TestRouter>
        <Shell />
      </TestRouter>
    </QueryClientProvider>,
  )
  return client
}

describe('the shell’s extras wait for the first page', () => {
  it('are left out while the page’s data is on its way, and come a frame after it is shown', async () => {
    let answer!: (s: string) => void
    setup(new Promise<string>((r) => (answer = r)))
    await act(frame)
    await act(frame)
    expect(screen.getByText('loading')).toBeTruthy()
    expect(screen.queryByText('extras')).toBeNull()
    await act(async () => {
      answer('rows')
      await frame()
      await frame()
    })
    expect(screen.getByText('rows')).toBeTruthy()
    expect(screen.getByText('extras')).toBeTruthy()
  })

  it('come after the cap whatever the page is still waiting for', async () => {
    setup(new Promise<string>(() => undefined), 300)
    await act(frame)
    expect(screen.queryByText('extras')).toBeNull()
    await act(() => new Promise((r) => setTimeout(r, 400)))
    await act(frame)
    expect(screen.getByText('loading')).toBeTruthy()
    expect(screen.getByText('extras')).toBeTruthy()
  })

  it('stay once shown, for every later page of the same tab', async () => {
    const client = setup(Promise.resolve('rows'))
    await act(async () => {
      await frame()
      await frame()
    })
    expect(screen.getByText('extras')).toBeTruthy()
    // A later page's query fetching does not take them away.
    await act(async () => {
      void client.query({ queryKey: ['later'], queryFn: () => new Promise(() => undefined) })
      await frame()
    })
    expect(screen.getByText('extras')).toBeTruthy()
  })
})
