// @vitest-environment happy-dom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, renderHook } from '@testing-library/react'
import type { SortingState } from '@tanstack/react-table'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { endpointsQuery } from '../../api/callback-endpoints'
import { indexStatusQuery, parseStatus } from '../../api/index-status'
import { numbersQuery, previewListing, type OwnedNumber } from '../../api/numbers'
import { COLUMNS_ALL } from './columns'
import { useNumbersRows } from './use-numbers-rows'

const listing: OwnedNumber[] = Array.from({ length: 50 }, (_, i) => ({
  number: `1832555${String(i).padStart(4, '0')}`,
  tid: `t${i}`,
  type: 'local',
  country: 'US',
  webhook: 'https://hooks.example.com/in',
  dlr: 'https://hooks.example.com/dlr',
}))

/** Puts an answer in the cache, as a fetch would, and lets the observers hear of it (their notices go out on a timer). */
async function answer(client: QueryClient, key: readonly unknown[], data: unknown) {
  await act(async () => {
    client.setQueryData(key, data)
    await new Promise((r) => setTimeout(r, 10))
  })
}

function setup() {
  // The listing has answered; the index status and the callback watch have not yet (the order
  // seen on a large account: they land just after its first rows are drawn). Nothing is fetched:
  // the queries are disabled, and answered by hand.
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, enabled: false } } })
  client.setQueryData(numbersQuery('all').queryKey, listing)
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>
  const renders = { count: 0 }
  const hook = renderHook(
    () => {
      renders.count++
      return useNumbersRows({ tab: 'all', query: '', auditSel: [], sorting: [], columns: COLUMNS_ALL })
    },
    { wrapper },
  )
  return { client, hook, renders }
}

afterEach(cleanup)

describe('useNumbersRows', () => {
  it('keeps the rows it drew when the index status and the callback watch answer with nothing for any number', async () => {
    const { client, hook, renders } = setup()
    const before = hook.result.current.rows
    const rendered = renders.count
    expect(before).toHaveLength(50)
    await answer(client, indexStatusQuery().queryKey, parseStatus({ enabled: true, numbers: [] }))
    await answer(client, endpointsQuery().queryKey, [])
    // The answers reached the hook (it rendered for each), and the rows are the ones already drawn.
    expect(renders.count).toBeGreaterThanOrEqual(rendered + 2)
    expect(hook.result.current.rows).toBe(before)
  })

  it('builds new rows when the index status holds one of the numbers', async () => {
    const { client, hook } = setup()
    const before = hook.result.current.rows
    await answer(
      client,
      indexStatusQuery().queryKey,
      parseStatus({
        enabled: true,
        numbers: [{ number: listing[3]!.number, tid: 't3', state: 'complete', indexed: 12, upstreamTotal: 12 }],
      }),
    )
    const after = hook.result.current.rows
    expect(after).not.toBe(before)
    expect(after[3]!.index?.indexed).toBe(12)
    expect(after[2]!.index).toBeUndefined()
  })
})

describe('useNumbersRows while a long listing is parsed', () => {
  const long = Array.from({ length: 500 }, (_, i) => ({ ...listing[0]!, number: `1713555${String(i).padStart(4, '0')}`, tid: `p${i}` }))
  function pending(opts: { query?: string; sorting?: SortingState } = {}) {
    // The listing has not answered (the query waits), and its text's first records are the preview.
    const client = new QueryClient({ defaultOptions: { queries: { retry: false, enabled: false } } })
    const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>
    const hook = renderHook(
      () => useNumbersRows({ tab: 'all', query: opts.query ?? '', auditSel: [], sorting: opts.sorting ?? [], columns: COLUMNS_ALL }),
      { wrapper },
    )
    act(() => {
      expect(previewListing('all', JSON.stringify({ success: '1', data: long }))).toBe(true)
    })
    return { client, hook }
  }

  it('draws the first records as rows, in the listing’s order, until the whole listing answers', async () => {
    const { client, hook } = pending()
    expect(hook.result.current.data).toBeUndefined()
    expect(hook.result.current.rows.map((r) => r.owned.number)).toEqual(long.slice(0, 60).map((n) => n.number))
    await answer(client, numbersQuery('all').queryKey, long)
    expect(hook.result.current.rows).toHaveLength(500)
  })
  it('draws none while a search or a sort is asked for: the first records are not their first rows', () => {
    expect(pending({ query: '713' }).hook.result.current.rows).toEqual([])
    cleanup()
    expect(pending({ sorting: [{ id: 'number', desc: true }] }).hook.result.current.rows).toEqual([])
  })
})
