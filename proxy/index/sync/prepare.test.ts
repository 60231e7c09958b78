import { describe, expect, it } from 'vitest'
import type { PageMeta } from '../parse.ts'
import { prepareBatch, type Placed } from './prepare.ts'
import { record } from '../../testing/sync-records.ts'

const meta: PageMeta = { total: 100, newestId: null, newestAt: null, createdRaw: null, optin: null }
const of = { number: '15550009999', tid: 'TID1', desk: false }
const prepared = async (ordinals: number[]) => {
  const placed: Placed[] = ordinals.map((ordinal) => ({ ordinal, r: record(ordinal) }))
  const prep = await prepareBatch(of, meta, placed, null, true)
  return {
    ordinals: prep.rows.map((m) => m.ordinal),
    // Each row's own record and COPY line went with it (the line carries the ordinal after the head).
    aligned: prep.rows.every((m, j) => m.r.systemId === `S${m.ordinal}` && prep.lines![j]!.startsWith(`15550009999,TID1,${m.ordinal},`)),
  }
}

describe('prepareBatch', () => {
  it('puts the rows in descending ordinals (as the key runs) whatever order they came in, each with its own record and line', async () => {
    // A walk's batch: newest first, kept as it is.
    expect(await prepared([9, 8, 7, 6, 5])).toEqual({ ordinals: [9, 8, 7, 6, 5], aligned: true })
    // Ascending (a catch-up), reversed.
    expect(await prepared([3, 4, 10])).toEqual({ ordinals: [10, 4, 3], aligned: true })
    // Neither: two pages' bands out of order, and a gap.
    expect(await prepared([20, 21, 22, 5, 6, 30])).toEqual({ ordinals: [30, 22, 21, 20, 6, 5], aligned: true })
    expect(await prepared([7, 9, 8])).toEqual({ ordinals: [9, 8, 7], aligned: true })
    expect(await prepared([4])).toEqual({ ordinals: [4], aligned: true })
    expect(await prepared([])).toEqual({ ordinals: [], aligned: true })
  })
})
