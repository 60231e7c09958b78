// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { IndexProgress } from '../api/index-status.ts'
import { TestRouter } from '../lib/test-router.tsx'
import { IndexingIndicator, OverallProgress } from './index-progress.tsx'

afterEach(cleanup)

const running: IndexProgress = {
  numbersTotal: 60,
  numbersDone: 12,
  messages: 40_000,
  messagesTotal: 160_000,
  ratePerSecond: 1_500,
  secondsLeft: 80,
  running: true,
}

describe('the header indicator', () => {
  it('shows numbers done of the account with a progress bar and a link to the Index page while indexing runs', () => {
    render(<IndexingIndicator progress={running} />, { wrapper: TestRouter })
    const bar = screen.getByRole('progressbar', { name: 'Indexing the account' })
    expect(bar.getAttribute('aria-valuenow')).toBe('20')
    expect(bar.getAttribute('aria-valuetext')).toBe('12 of 60 numbers')
    const link = screen.getByRole('link', { name: /^Indexing 12\/60 numbers/ })
    expect(link.getAttribute('href')).toBe('/index')
  })

  it("fills by numbers, not by messages whose totals are not all known yet, and claims no figure before the account's numbers are", () => {
    const { rerender } = render(<IndexingIndicator progress={{ ...running, numbersDone: 1, messages: 5_000, messagesTotal: 5_000 }} />, {
      wrapper: TestRouter,
    })
    expect(screen.getByRole('progressbar', { name: 'Indexing the account' }).getAttribute('aria-valuenow')).toBe('1')
    rerender(<IndexingIndicator progress={{ ...running, numbersTotal: 0, numbersDone: 0, messages: 0, messagesTotal: 0 }} />)
    const bar = screen.getByRole('progressbar', { name: 'Indexing the account' })
    expect(bar.hasAttribute('aria-valuenow')).toBe(false)
    expect(bar.getAttribute('aria-valuetext')).toBe('Starting')
  })

  it('is gone when indexing is done, and when the server says nothing about it', () => {
    const { container, rerender } = render(<IndexingIndicator progress={{ ...running, running: false, numbersDone: 60 }} />, {
      wrapper: TestRouter,
    })
    expect(container.innerHTML).toBe('')
    rerender(<IndexingIndicator progress={null} />)
    expect(container.innerHTML).toBe('')
    // every number done while the periodic catch-up runs: nothing is left to index
    rerender(<IndexingIndicator progress={{ ...running, numbersDone: 60 }} />)
    expect(container.innerHTML).toBe('')
    expect(screen.queryByRole('progressbar')).toBeNull()
  })
})

describe("the Index page's overall progress", () => {
  const figure = (term: string) => {
    const dt = screen.getByText(term, { selector: 'dt' })
    return dt.nextElementSibling?.textContent
  }

  it('gives numbers done, messages, the rate and the time left, all from the server', () => {
    render(<OverallProgress progress={running} />)
    const section = screen.getByRole('region', { name: 'Indexing the account' })
    expect(within(section).getByRole('progressbar', { name: 'Numbers of the account indexed' })).toBeTruthy()
    expect(figure('Numbers done')).toBe('12 of 60')
    expect(figure('Messages indexed')).toBe('40,000 of 160,000 known so far')
    expect(figure('Rate')).toBe('1,500 messages/s')
    expect(figure('Time left')).toBe('about 1 min')
  })

  it('says when the rate is still being measured', () => {
    render(<OverallProgress progress={{ ...running, ratePerSecond: null, secondsLeft: null }} />)
    expect(figure('Rate')).toBe('measuring…')
    expect(figure('Time left')).toBe('not known yet')
  })

  it('says the account is indexed once every number is done, with no bar', () => {
    render(
      <OverallProgress
        progress={{ ...running, running: false, numbersDone: 60, messages: 160_000, ratePerSecond: null, secondsLeft: null }}
      />,
    )
    expect(screen.getByRole('region', { name: 'The whole account is indexed' })).toBeTruthy()
    expect(screen.queryByRole('progressbar')).toBeNull()
    expect(figure('Messages indexed')).toBe('160,000')
    expect(figure('Time left')).toBe('none')
  })

  it('says a fully indexed account is only being looked over for new messages, with no bar', () => {
    render(<OverallProgress progress={{ ...running, numbersDone: 60, messages: 160_000, secondsLeft: null }} />)
    expect(screen.getByRole('region', { name: 'The whole account is indexed; looking for new messages' })).toBeTruthy()
    expect(screen.queryByRole('progressbar')).toBeNull()
    expect(figure('Time left')).toBe('none')
  })

  it('says indexing is not running when it stopped short', () => {
    render(<OverallProgress progress={{ ...running, running: false, ratePerSecond: null, secondsLeft: null }} />)
    expect(screen.getByRole('region', { name: 'Indexing is not running' })).toBeTruthy()
    expect(figure('Time left')).toBe('not known: no sync is running')
  })
})
