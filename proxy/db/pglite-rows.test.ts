import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as pgParse, PGlite, protocol, types } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshPgliteDir } from '../testing/pglite-template.ts'
import { joined, readRows } from './pglite-rows.ts'

/**
 * readRows reads the worker's answers in place of PGlite's parser (pglite-rows.ts). Each
 * statement here is run twice on one PGlite, as the worker runs a kept statement (Bind, Describe,
 * Execute, Sync): once read by PGlite's own execProtocol and parseResults, once by readRows from
 * the raw bytes. The two must give the same rows, whatever the types, sizes and names.
 */

const root = mkdtempSync(join(tmpdir(), 'sb-rows-'))
let lite: PGlite
const wire = protocol.serialize
let seq = 0

beforeAll(async () => {
  await freshPgliteDir(join(root, 'data'))
  lite = await PGlite.create({ dataDir: join(root, 'data') })
  await lite.exec(
    `CREATE TABLE rows_t (id int PRIMARY KEY, name text, tags text[], at timestamptz, doc jsonb, raw bytea, big bigint, ok boolean, n numeric, f float8)`,
  )
  await lite.query(
    `INSERT INTO rows_t VALUES (1, 'ARRÊT 👍🏽 "quoted", and a\nline', ARRAY['a', 'b,c', 'd"e', NULL], '2026-03-08T09:59:59.123Z', '{"k": [1, "x"]}', '\\x00ff07', 9007199254740993, true, 12.50, 0.1),
            (2, NULL, '{}', NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  )
}, 120_000)
afterAll(async () => {
  await lite.close()
  rmSync(root, { recursive: true, force: true })
})

/** One statement, prepared once, executed as the worker does; read both ways. */
async function both(sql: string, values: Array<string | null> = []) {
  const name = `t${++seq}`
  await lite.execProtocol(joined([wire.parse({ name, text: sql, types: [] }), wire.sync()]))
  const run = joined([wire.bind({ statement: name, values }), wire.describe({ type: 'P' }), wire.execute({}), wire.sync()])
  const theirs = await lite.execProtocol(run, { throwOnError: false })
  const chunks: Uint8Array[] = []
  await lite.execProtocolRawStream(run, { onRawData: (b) => chunks.push(b.slice()) })
  const ours = readRows(joined(chunks), (text, typeId) => types.parseType(text, typeId, lite.parsers))
  return { theirs: pgParse.parseResults(theirs.messages, lite.parsers)[0]?.rows ?? [], ours, chunks: chunks.length }
}

describe('readRows against PGlite’s own parser', () => {
  it('gives the same rows for every column type the server reads, NULLs and Unicode included', async () => {
    const { theirs, ours } = await both('SELECT * FROM rows_t ORDER BY id')
    expect(ours).toEqual(theirs)
    expect(ours?.[0]).toMatchObject({ id: 1, name: 'ARRÊT 👍🏽 "quoted", and a\nline', tags: ['a', 'b,c', 'd"e', null], ok: true })
    expect(ours?.[0]?.raw).toEqual(new Uint8Array([0, 255, 7]))
    expect(ours?.[1]).toMatchObject({ id: 2, name: null, tags: [], doc: null, big: null })
  })

  it('keeps the last value of a repeated column name, as parseResults does', async () => {
    const { theirs, ours } = await both(`SELECT 1 AS a, 'two' AS a, NULL::int AS b, 'é' AS "ü name"`)
    expect(ours).toEqual(theirs)
    expect(ours).toEqual([{ a: 'two', b: null, 'ü name': 'é' }])
  })

  it('reads an answer that comes in many pieces (thousands of rows, long texts) the same', async () => {
    const { theirs, ours, chunks } = await both(
      `SELECT g AS i, repeat('ÿ€', g % 300) AS s, g::bigint * 1000003 AS b FROM generate_series(1, $1::int) g`,
      ['5000'],
    )
    expect(chunks).toBeGreaterThan(1)
    expect(ours).toHaveLength(5000)
    expect(ours).toEqual(theirs)
  })

  it('gives no rows for none and for a statement without a result, and null for an error', async () => {
    expect((await both('SELECT id FROM rows_t WHERE id < 0')).ours).toEqual([])
    const insert = await both(`UPDATE rows_t SET ok = ok WHERE id = 1`)
    expect(insert.ours).toEqual(insert.theirs)
    expect(insert.ours).toEqual([])
    expect((await both('SELECT 1 / $1::int AS x', ['0'])).ours).toBeNull()
  })
})
