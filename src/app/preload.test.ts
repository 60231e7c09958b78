// @vitest-environment happy-dom
import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { STILL_MS, whenQuiet } from './preload'
import type { AppRouter } from './routes'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** What whenQuiet reads of the router: a page that has loaded. */
const loadedRouter = { state: { isLoading: false, status: 'idle' } } as unknown as AppRouter

function recorder() {
  const ran: Array<{ name: string; at: number }> = []
  const task = (name: string) => () => void ran.push({ name, at: performance.now() })
  return { ran, task }
}

describe('whenQuiet', () => {
  it('runs every task in order, each in an idle period of its own', async () => {
    const { ran, task } = recorder()
    whenQuiet(new QueryClient(), loadedRouter, [task('a'), task('b'), task('c')])
    expect(ran).toEqual([])
    await sleep(STILL_MS / 2 + 800)
    expect(ran.map((r) => r.name)).toEqual(['a', 'b', 'c'])
    // One per idle period: never two in the same task.
    expect(ran[1]!.at).toBeGreaterThan(ran[0]!.at)
    expect(ran[2]!.at).toBeGreaterThan(ran[1]!.at)
  })

  it('waits while a query fetches', async () => {
    const client = new QueryClient()
    let answer!: (v: string) => void
    void client.query({ queryKey: ['slow'], queryFn: () => new Promise<string>((r) => (answer = r)) })
    const { ran, task } = recorder()
    whenQuiet(client, loadedRouter, [task('a')])
    await sleep(900)
    expect(client.isFetching()).toBe(1)
    expect(ran).toEqual([])
    answer('done')
    await sleep(1200)
    expect(ran.map((r) => r.name)).toEqual(['a'])
  })

  it('holds the next task while the user scrolls, until they have been still for STILL_MS', async () => {
    const { ran, task } = recorder()
    whenQuiet(new QueryClient(), loadedRouter, [task('a'), task('b')])
    // Scrolling in a region of the page (scroll does not bubble: the listener captures it).
    const region = document.createElement('div')
    document.body.append(region)
    const scrolled: number[] = []
    const stop = performance.now() + STILL_MS + 300
    while (performance.now() < stop) {
      region.dispatchEvent(new Event('scroll'))
      scrolled.push(performance.now())
      await sleep(100)
    }
    const lastScroll = scrolled.at(-1)!
    expect(ran.every((r) => r.at > lastScroll || r.at < scrolled[0]!)).toBe(true)
    expect(ran.filter((r) => r.at > scrolled[0]! && r.at <= lastScroll)).toEqual([])
    await sleep(STILL_MS + 900)
    expect(ran.map((r) => r.name)).toEqual(['a', 'b'])
    // What ran after the scrolling began waited for STILL_MS after its end.
    for (const r of ran.filter((x) => x.at > scrolled[0]!)) expect(r.at - lastScroll).toBeGreaterThanOrEqual(STILL_MS - 5)
    region.remove()
  })
})
