// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiError, wordsFor } from '../../api/errors.ts'
import type { Freshness, IndexProgress } from '../../api/index-status.ts'
import { SearchCoverage } from './coverage.tsx'

afterEach(cleanup)

const fresh: Freshness = { numbersKnown: 60, numbersComplete: 60, syncing: [], incomplete: [], indexedUpTo: '2026-11-21T12:04:00Z' }
const done: IndexProgress = {
  numbersTotal: 60,
  numbersDone: 60,
  messages: 1000,
  messagesTotal: 1000,
  ratePerSecond: null,
  secondsLeft: null,
  running: false,
}

describe("the Search page's coverage line", () => {
  it('says how many numbers are indexed and up to when', () => {
    render(<SearchCoverage freshness={fresh} progress={done} autoSync={true} accountListed={true} zone="utc" onStart={async () => {}} />)
    expect(screen.getByText(/^60 of 60 numbers indexed, up to .*2026.*\.$/)).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Index all numbers' })).toBeNull()
  })

  it('names the numbers still indexing while a sync runs, and offers nothing to start', () => {
    render(
      <SearchCoverage
        freshness={{ ...fresh, numbersComplete: 12, incomplete: ['1', '2', '3'], syncing: ['1'] }}
        progress={{ ...done, numbersDone: 12, running: true }}
        autoSync={true}
        accountListed={true}
        zone="utc"
        onStart={async () => {}}
      />,
    )
    expect(
      screen.getByText(
        /^12 of 60 numbers indexed, up to .*; 3 numbers not fully indexed, 1 of them indexing now: results may be incomplete\.$/,
      ),
    ).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Index all numbers' })).toBeNull()
  })

  it('says "still indexing" only of numbers queued or syncing, never of one whose sync failed', () => {
    const line = (f: Partial<Freshness>) => {
      cleanup()
      render(
        <SearchCoverage
          freshness={{ ...fresh, numbersComplete: 58, ...f }}
          progress={{ ...done, numbersDone: 58 }}
          autoSync={true}
          accountListed={true}
          zone="utc"
          onStart={async () => {}}
        />,
      )
      return screen.getByText(/^58 of 60 numbers indexed/).textContent
    }
    expect(line({ incomplete: ['1', '2'], syncing: ['1', '2'] })).toMatch(/; 2 numbers still indexing: results may be incomplete\.$/)
    // Both stopped short (a failed or cancelled sync): nothing is indexing them.
    expect(line({ incomplete: ['1', '2'], syncing: [] })).toMatch(/; 2 numbers not fully indexed: results may be incomplete\.$/)
    expect(line({ incomplete: ['1'], syncing: [] })).toMatch(/; 1 number not fully indexed: results may be incomplete\.$/)
  })

  it('offers to start indexing when the server does not index on its own, and says it started', async () => {
    const calls: string[] = []
    render(
      <SearchCoverage
        freshness={{ numbersKnown: 0, numbersComplete: 0, syncing: [], incomplete: [], indexedUpTo: null }}
        progress={{ ...done, numbersTotal: 0, numbersDone: 0, messages: 0, messagesTotal: 0 }}
        autoSync={false}
        accountListed={false}
        zone="utc"
        onStart={() => {
          calls.push('start')
          return Promise.resolve()
        }}
      />,
    )
    expect(screen.getByText('No number is indexed yet.')).toBeTruthy()
    expect(screen.queryByText(/0 of 0/)).toBeNull()
    expect(
      screen.getByText(/Nothing has been indexed yet: this server does not index the account on its own \(INDEX_AUTO_SYNC=off\)/),
    ).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Index all numbers' }))
    expect(await screen.findByRole('status')).toHaveProperty('textContent', 'Indexing has started: matches grow as numbers are indexed.')
    expect(calls).toEqual(['start'])
    expect(screen.queryByRole('button', { name: 'Index all numbers' })).toBeNull()
  })

  it('offers to start again when indexing stopped short, and says when that failed', async () => {
    render(
      <SearchCoverage
        freshness={{ ...fresh, numbersComplete: 59, incomplete: ['1'] }}
        progress={{ ...done, numbersDone: 59 }}
        autoSync={true}
        accountListed={true}
        zone="utc"
        onStart={() =>
          Promise.reject(new ApiError('unreachable', 'The messaging service did not answer.', 502, { cause: 'connection refused' }))
        }
      />,
    )
    expect(screen.getByText(/^Indexing is not running\./)).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Index all numbers' }))
    // Why, in the words every error of its kind gets, and the server's cause: not only "could not".
    const alert = (await screen.findByRole('alert')).textContent
    expect(alert).toMatch(/^Indexing could not be started: .+ \(connection refused\)\. Try again/)
    expect(alert).toContain(wordsFor(new ApiError('unreachable', '', 502)).title)
  })
})

describe('an index that has not read the account', () => {
  it('offers to index every number even when the numbers it knows are done', () => {
    render(
      <SearchCoverage
        freshness={{ ...fresh, numbersKnown: 1, numbersComplete: 1 }}
        progress={{ ...done, numbersTotal: 1, numbersDone: 1 }}
        autoSync={false}
        accountListed={false}
        zone="utc"
        onStart={async () => {}}
      />,
    )
    expect(screen.getByText(/^1 of 1 numbers indexed/)).toBeTruthy()
    expect(screen.getByText(/^Only the numbers someone opened are indexed: this server does not index the account on its own/)).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Index all numbers' })).toBeTruthy()
  })
})

describe('the coverage line on a large account', () => {
  it('counts from the server’s counts, not from its lists, which stop at 100 names', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => String(15550000000 + i))
    render(
      <SearchCoverage
        freshness={{
          numbersKnown: 10_000,
          numbersComplete: 281,
          syncing: hundred,
          incomplete: hundred,
          indexedUpTo: null,
          syncingCount: 9_720,
          incompleteCount: 9_719,
          incompleteSyncingCount: 9_718,
        }}
        progress={{ ...done, numbersTotal: 10_000, numbersDone: 281, running: true }}
        autoSync={true}
        accountListed={true}
        zone="utc"
        onStart={async () => {}}
      />,
    )
    expect(
      screen.getByText(
        '281 of 10,000 numbers indexed; 9,719 numbers not fully indexed, 9,718 of them indexing now: results may be incomplete.',
      ),
    ).toBeTruthy()
  })
})
