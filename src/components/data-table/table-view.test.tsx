// @vitest-environment happy-dom
import { createColumnHelper, type SortingState } from '@tanstack/react-table'
import { cleanup, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it } from 'vitest'
import type { Features } from './features'
import { VirtualTable } from './virtual-table'

afterEach(cleanup)

interface Row {
  id: string
  type: string
  count: number
}
const helper = createColumnHelper<Features, Row>()
const COLUMNS = helper.columns([
  helper.accessor('type', { id: 'type', header: 'Type', meta: { card: 'meta', sortValue: (r) => r.type } }),
  helper.accessor('count', { id: 'count', header: 'Count', sortDescFirst: true, meta: { card: 'meta', sortValue: (r) => r.count } }),
])
const ROWS: Row[] = [
  { id: 'a', type: 'local', count: 3 },
  { id: 'b', type: 'tollfree', count: 1 },
]

function firstClick(rows: Row[], header: string) {
  const picks: SortingState[] = []
  render(
    <VirtualTable
      rows={rows}
      columns={COLUMNS}
      getRowId={(r) => r.id}
      sorting={[]}
      onSortingChange={(next) => {
        picks.push(next)
      }}
      label="Rows"
      estimateRowHeight={40}
    />,
  )
  return { picks, click: () => userEvent.setup().click(screen.getByRole('button', { name: new RegExp(header) })) }
}

describe('a header’s first click', () => {
  // TanStack guesses the first direction from the rows it holds: with none in view (a filter just typed,
  // rows on their way) it guessed descending, and a text column sorted Z to A.
  for (const [what, rows] of [
    ['with rows in view', ROWS],
    ['with no rows in view', []],
  ] as const) {
    it(`sorts a text column ascending ${what}`, async () => {
      const t = firstClick([...rows], 'Type')
      await t.click()
      expect(t.picks).toEqual([[{ id: 'type', desc: false }]])
    })
    it(`sorts a column that says so descending ${what}`, async () => {
      const t = firstClick([...rows], 'Count')
      await t.click()
      expect(t.picks).toEqual([[{ id: 'count', desc: true }]])
    })
  }
})
