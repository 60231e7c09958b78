// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, expect, test } from 'vitest'
import { useKeyedChoice } from './use-keyed-choice'

afterEach(cleanup)

/** A select over a, b, c whose commits are recorded, its shown value the "URL's". */
function Harness({ commits, start = 'a' }: { commits: string[]; start?: string }) {
  const [shown, setShown] = useState(start)
  const choice = useKeyedChoice(shown, (v: string) => {
    commits.push(v)
    setShown(v)
  })
  return (
    <>
      <select
        aria-label="Number"
        value={choice.value}
        onChange={(e) => {
          choice.change(e.target.value)
        }}
        {...choice.props}
      >
        <option value="a">a</option>
        <option value="b">b</option>
        <option value="c">c</option>
      </select>
      <button
        type="button"
        onClick={() => {
          setShown('c')
        }}
      >
        elsewhere
      </button>
    </>
  )
}

const select = () => screen.getByRole<HTMLSelectElement>('combobox', { name: 'Number' })
/** An arrow key on the closed select: its keydown, and the change the browser makes in the same task. */
const arrowTo = (value: string) => {
  fireEvent.keyDown(select(), { key: 'ArrowDown' })
  fireEvent.change(select(), { target: { value } })
}
const tick = () => new Promise((r) => setTimeout(r, 0))

test('the arrow keys move the select without committing; Enter commits the one shown, once', () => {
  const commits: string[] = []
  render(<Harness commits={commits} />)
  arrowTo('b')
  arrowTo('c')
  expect(select().value).toBe('c')
  expect(commits).toEqual([])
  fireEvent.keyDown(select(), { key: 'Enter' })
  expect(commits).toEqual(['c'])
})

test('Escape goes back to what was shown; leaving the select commits what the keys reached', () => {
  const commits: string[] = []
  render(<Harness commits={commits} />)
  arrowTo('b')
  fireEvent.keyDown(select(), { key: 'Escape' })
  expect(select().value).toBe('a')
  arrowTo('c')
  fireEvent.blur(select())
  expect(commits).toEqual(['c'])
})

test('a change with no key in its task (the pointer, the open list, a phone picker) commits at once', async () => {
  const commits: string[] = []
  render(<Harness commits={commits} />)
  fireEvent.change(select(), { target: { value: 'b' } })
  expect(commits).toEqual(['b'])
  // A key that moved nothing (the last option, a letter matching none) marks no later change.
  fireEvent.keyDown(select(), { key: 'z' })
  await tick()
  fireEvent.change(select(), { target: { value: 'c' } })
  expect(commits).toEqual(['b', 'c'])
})

test('the page moving on from elsewhere drops what the keys were browsing; leaving then commits nothing', () => {
  const commits: string[] = []
  render(<Harness commits={commits} />)
  arrowTo('b')
  fireEvent.click(screen.getByRole('button', { name: 'elsewhere' }))
  expect(select().value).toBe('c')
  fireEvent.blur(select())
  expect(commits).toEqual([])
})
