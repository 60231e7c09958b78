import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDb, type OpenedDb } from './open.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'

/**
 * PGlite's worker keeps the statements it has seen parsed (pglite-worker.ts, preparedQuery). What
 * a caller gets must not change: values of every type the server sends, errors, transactions, the
 * bound on kept statements, and a schema change under a kept statement.
 */

const root = mkdtempSync(join(tmpdir(), 'sb-prepared-'))
let db: OpenedDb
beforeAll(async () => {
  await freshPgliteDir(join(root, 'data'))
  db = await openDb({ dataDir: join(root, 'data') })
  await db.query('CREATE TABLE prep_t (id int PRIMARY KEY, name text, tags text[], at timestamptz, doc jsonb, raw bytea, big bigint)')
}, 120_000)
afterAll(async () => {
  await db.close()
  rmSync(root, { recursive: true, force: true })
})

const kept = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0]?.n ?? 0

describe('statements PGlite keeps parsed', () => {
  it('gives the same values on every run of one statement, for each parameter type', async () => {
    const insert = 'INSERT INTO prep_t (id, name, tags, at, doc, raw, big) VALUES ($1, $2, $3, $4, $5, $6, $7)'
    const at = new Date('2026-03-08T09:59:59.123Z')
    await db.query(insert, [1, 'ARRÊT 👍🏽', ['a', 'b,c', 'd"e', null], at, { k: [1, 'x'] }, new Uint8Array([0, 255, 7]), 2n ** 53n + 1n])
    await db.query(insert, [2, null, [], null, null, null, null])
    const select = 'SELECT id, name, tags, at, doc, raw, big::text AS big FROM prep_t WHERE id = ANY($1::int[]) ORDER BY id'
    for (let run = 0; run < 3; run++) {
      const rows = (await db.query(select, [[1, 2]])).rows
      expect(rows).toEqual([
        {
          id: 1,
          name: 'ARRÊT 👍🏽',
          tags: ['a', 'b,c', 'd"e', null],
          at,
          doc: { k: [1, 'x'] },
          raw: new Uint8Array([0, 255, 7]),
          big: '9007199254740993',
        },
        { id: 2, name: null, tags: [], at: null, doc: null, raw: null, big: null },
      ])
    }
    expect((await db.query(select, [[2]])).rows.map((r) => r.id)).toEqual([2])
    // Kept once each, not once per run.
    const names = (await db.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map((r) => r.statement)
    expect(names.filter((s) => s === select)).toHaveLength(1)
  })

  it('keeps errors and transactions as they were: a failed statement rolls its transaction back, the connection goes on', async () => {
    const insert = 'INSERT INTO prep_t (id, name) VALUES ($1, $2)'
    await expect(
      db.transaction(async (tx) => {
        await tx.query(insert, [10, 'first'])
        await tx.query(insert, [10, 'duplicate'])
      }),
    ).rejects.toMatchObject({ code: '23505' })
    expect((await db.query('SELECT id FROM prep_t WHERE id = $1', [10])).rows).toEqual([])
    // A statement that does not parse is not kept, and says why each time.
    await expect(db.query('SELECT FROM WHERE $1', [1])).rejects.toMatchObject({ code: '42601' })
    await expect(db.query('SELECT FROM WHERE $1', [1])).rejects.toMatchObject({ code: '42601' })
    const batch = await db.batch!([
      { sql: insert, params: [11, 'in a batch'] },
      { sql: 'SELECT name FROM prep_t WHERE id = $1', params: [11] },
    ])
    expect(batch[1]?.rows).toEqual([{ name: 'in a batch' }])
  })

  it('keeps at most 256 statements, and one closed for room runs again when asked', async () => {
    const first = 'SELECT $1::int + 0 AS v'
    expect((await db.query(first, [1])).rows).toEqual([{ v: 1 }])
    for (let i = 1; i <= 300; i++) await db.query(`SELECT $1::int + ${i} AS v`, [1])
    expect(await kept()).toBeLessThanOrEqual(256)
    expect((await db.query(first, [41])).rows).toEqual([{ v: 41 }])
  })

  it('answers a kept SELECT * after its table gains a column (no "cached plan must not change result type")', async () => {
    const all = 'SELECT * FROM prep_t WHERE id = $1'
    expect(Object.keys((await db.query(all, [1])).rows[0] ?? {})).not.toContain('extra')
    await db.query('ALTER TABLE prep_t ADD COLUMN extra int DEFAULT 5')
    expect((await db.query(all, [1])).rows[0]).toMatchObject({ id: 1, extra: 5 })
    await db.query('ALTER TABLE prep_t DROP COLUMN extra')
    expect(Object.keys((await db.query(all, [1])).rows[0] ?? {})).not.toContain('extra')
  })
})
