// @vitest-environment happy-dom
import { RouterProvider, useNavigate, useSearch } from '@tanstack/react-router'
import { act, cleanup, render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it } from 'vitest'
import { createHeldRouter } from './test-router'
import { useUrlBound } from './use-url-bound'

afterEach(cleanup)

/** The query in the URL's words: `on=1`, `range=b`; absent is off and `a`. */
type Probe = { on?: '1'; range?: string }
const validateSearch = (input: Record<string, unknown>): Probe => ({
  ...(input.on === '1' ? { on: '1' } : {}),
  ...(typeof input.range === 'string' && input.range !== 'a' ? { range: input.range } : {}),
})

/** Every value the checkbox was rendered with, in order. */
let rendered: boolean[] = []

/** A checkbox and a radio group whose state is the URL's, as the app's controls are. */
function Controls() {
  // The test router is not the app's registered tree: its search is read untyped and checked here.
  const search = validateSearch(useSearch({ strict: false }))
  const navigate = useNavigate()
  const go = (patch: Probe) => navigate({ to: '.', search: (prev: Probe) => validateSearch({ ...prev, ...patch }), replace: true } as never)
  const [on, setOn] = useUrlBound(search.on === '1', (next) => go({ on: next ? '1' : undefined }))
  const [range, setRange] = useUrlBound(search.range ?? 'a', (next) => go({ range: next }))
  rendered.push(on)
  return (
    <>
      <label>
        <input
          type="checkbox"
          checked={on}
          onChange={(e) => {
            setOn(e.target.checked)
          }}
        />
        On
      </label>
      <fieldset>
        <legend>Range</legend>
        {['a', 'b', 'c'].map((r) => (
          <label key={r}>
            <input
              type="radio"
              name="range"
              checked={range === r}
              onChange={() => {
                setRange(r)
              }}
            />
            Range {r}
          </label>
        ))}
      </fieldset>
    </>
  )
}

/** The controls under a router whose navigations to `held` queries wait for the test's release. */
async function setUp(held: (s: Probe) => boolean) {
  rendered = []
  const router = createHeldRouter({ path: '/', validateSearch, hold: (s) => held(validateSearch(s)), component: Controls, url: '/' })
  render(<RouterProvider router={router.router} />)
  await screen.findByRole('checkbox', { name: 'On' })
  return { ...router, user: userEvent.setup() }
}
const checkbox = () => screen.getByRole<HTMLInputElement>('checkbox', { name: 'On' })
const radio = (r: string) => screen.getByRole<HTMLInputElement>('radio', { name: `Range ${r}` })
/** A while for the router to do what it would; the held load still waits. */
const settle = () => act(() => new Promise((r) => setTimeout(r, 30)))

describe('useUrlBound', () => {
  it('shows a click at once, while the router has not committed the new URL, and keeps it when it commits', async () => {
    const held = await setUp((s) => s.on === '1')
    await held.user.click(checkbox())
    await settle()
    expect(held.router.history.location.search).toBe('?on=1')
    expect(held.committed()?.on).toBeUndefined()
    expect(checkbox().checked).toBe(true)

    act(() => {
      held.release()
    })
    await waitFor(() => {
      expect(held.committed()?.on).toBe('1')
    })
    expect(checkbox().checked).toBe(true)
    // The URL's value and the pick change over in one render: never back to unchecked between.
    expect(rendered.filter((v, i) => v !== rendered[i - 1])).toEqual([false, true])
  })

  it('answers Space on a checkbox the same way', async () => {
    const held = await setUp((s) => s.on === '1')
    checkbox().focus()
    await held.user.keyboard(' ')
    await settle()
    expect(held.committed()?.on).toBeUndefined()
    expect(checkbox().checked).toBe(true)
  })

  it('answers arrow keys in a radio group the same way, focus on the radio picked', async () => {
    const held = await setUp((s) => s.range !== undefined)
    radio('a').focus()
    await held.user.keyboard('{ArrowDown}')
    await settle()
    expect(held.router.history.location.search).toBe('?range=b')
    expect(held.committed()?.range).toBeUndefined()
    expect(radio('b').checked).toBe(true)
    expect(radio('a').checked).toBe(false)
    expect(document.activeElement).toBe(radio('b'))
    act(() => {
      held.release()
    })
    await waitFor(() => {
      expect(held.committed()?.range).toBe('b')
    })
    expect(radio('b').checked).toBe(true)
  })

  it('goes back to the URL when the navigation is cancelled by another', async () => {
    const held = await setUp((s) => s.on === '1')
    await held.user.click(checkbox())
    await settle()
    expect(checkbox().checked).toBe(true)
    // Another navigation (a link to the page as it was) overtakes the held one.
    void held.router.navigate({ to: '/', search: {} } as never)
    await waitFor(() => {
      expect(checkbox().checked).toBe(false)
    })
    expect(held.router.history.location.search).toBe('')
    expect(held.committed()?.on).toBeUndefined()
  })
})
