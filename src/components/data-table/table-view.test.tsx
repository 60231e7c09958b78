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

describe('rows already drawn', () => {
  // The table is given only the rows in the window, so TanStack makes new row and cell objects on
  // every render; a row is drawn again only when its record or the columns change (sameRow).
  it('are not drawn again when the table renders new row objects for the same records', () => {
    const drawn = new Map<string, number>()
    function Counted({ id }: { id: string }) {
      drawn.set(id, (drawn.get(id) ?? 0) + 1)
      return <span>{id}</span>
    }
    const columns = helper.columns([helper.accessor('id', { id: 'id', header: 'Id', cell: ({ row }) => <Counted id={row.original.id} /> })])
    const table = (rows: Row[]) => (
      <VirtualTable
        rows={rows}
        columns={columns}
        getRowId={(r) => r.id}
        sorting={[]}
        onSortingChange={() => {}}
        label="Rows"
        estimateRowHeight={40}
      />
    )
    const view = render(table(ROWS))
    expect(Object.fromEntries(drawn)).toEqual({ a: 1, b: 1 })
    // A new array of the same records: nothing is drawn again.
    view.rerender(table([...ROWS]))
    expect(Object.fromEntries(drawn)).toEqual({ a: 1, b: 1 })
    // A changed record is drawn again; the other is not.
    view.rerender(table([{ ...ROWS[0]!, count: 4 }, ROWS[1]!]))
    expect(Object.fromEntries(drawn)).toEqual({ a: 2, b: 1 })
  })
})
