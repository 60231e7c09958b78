// @vitest-environment happy-dom
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { useMedia } from './layout'

afterEach(cleanup)

function Narrow() {
  return <p>{useMedia('(max-width: 899.98px)') ? 'cards' : 'table'}</p>
}

const setWidth = (width: number) =>
  act(async () => {
    ;(window as unknown as { happyDOM: { setViewport: (v: { width: number; height: number }) => void } }).happyDOM.setViewport({
      width,
      height: 800,
    })
    await new Promise((r) => setTimeout(r, 0))
  })

describe('useMedia', () => {
  it('answers at the first render and follows the viewport across the query, in a component mounted before and one mounted after', async () => {
    await setWidth(1400)
    render(<Narrow />)
    expect(screen.getByText('table')).toBeTruthy()
    await setWidth(390)
    expect(screen.getByText('cards')).toBeTruthy()
    // A component mounted later reads the same kept list, still current.
    render(<Narrow />)
    expect(screen.getAllByText('cards')).toHaveLength(2)
  })
})
