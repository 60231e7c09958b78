// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, expect, test } from 'vitest'
import { EmptyState, TableSkeleton } from './empty-state.tsx'

afterEach(cleanup)

test('an empty state shows its title and its explanation', () => {
  render(<EmptyState title="No messages match">Try fewer filters</EmptyState>)
  expect(screen.getByText('No messages match')).toBeTruthy()
  expect(screen.getByText('Try fewer filters')).toBeTruthy()
})

test('a table skeleton is one status named by its label, its bars hidden from assistive tech', () => {
  render(<TableSkeleton label="Loading messages" rows={3} />)
  const status = screen.getByRole('status', { name: 'Loading messages' })
  expect(status.querySelectorAll('[aria-hidden="true"] > div')).toHaveLength(3)
})
