import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { appendEntries, cleanDetails, cleanText, type NewEntry } from './access-log.ts'
import { decodeCursor, encodeCursor, listEntries } from './log-listing.ts'
import { purgeAccessLog } from './log-purge.ts'
import { logAnchor, parseAnchor, verifyLog } from './log-verify.ts'
import type { Queryable } from '../db/types.ts'
import { createLogWriter } from './log-writer.ts'
import { createAccess } from './access.ts'
import { accessConfigFrom } from './config.ts'
import { loadSigningKey, readSignedHeads, signHead } from './signed-heads.ts'
import { ENGINES as STACK_ENGINES } from '../testing/access-stack.ts'

const engines = useEngines()
const T0 = Date.parse('2026-06-01T09:00:00Z')
const entry = (over: Partial<NewEntry> = {}): NewEntry => ({
  at: new Date(T0),
  actor: 'alice',
  via: 'password',
  address: '127.0.0.1',
  action: 'thread.view',
  details: {},
  ...over,
})

describe('access log details', () => {
  test('text is cleaned as written: cut to max code points, NUL and lone surrogates removed, whichever way it is taken', () => {
    // The rule, code point by code point; cleanText takes plain short text as it is.
    const byRule = (s: string, max: number) => {
      const kept = [...s].filter((ch) => ch !== '\u0000' && !(ch.length === 1 && ch >= '\ud800' && ch <= '\udfff'))
      return kept.length > max ? `${kept.slice(0, max).join('')}…` : kept.join('')
    }
    const text = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.string())
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 40 }), (s, max) => {
        expect(cleanText(s, max)).toBe(byRule(s, max))
      }),
      { numRuns: 2000 },
    )
    expect(cleanText('a\u0000b', 10)).toBe('ab')
    expect(cleanText('\ud83d', 10)).toBe('')
    expect(cleanText('👍🏽👍🏽', 2)).toBe('👍🏽…')
    expect(cleanText('1917', 4)).toBe('1917')
  })

  test('the forget entry keeps its count; message text under the same key is still dropped', () => {
    expect(cleanDetails({ number: '1', messages: 12 })).toEqual({ number: '1', messages: 12 })
    expect(cleanDetails({ messages: 'hello there' })).toEqual({})
  })
  test('a cursor whose date PostgreSQL would refuse is not a cursor', () => {
    expect(decodeCursor(encodeCursor({ at: '2026-06-01T09:00:00.000Z', id: '5' }))).toEqual({ at: '2026-06-01T09:00:00.000Z', id: '5' })
    for (const at of ['2026-02-31T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-01-01T25:00:00.000Z', '0000-01-01T00:00:00.000Z'])
      expect(decodeCursor(encodeCursor({ at, id: '1' })), at).toBeNull()
    expect(decodeCursor(encodeCursor({ at: '2026-06-01T09:00:00.000Z', id: '9999999999999999999' }))).toBeNull()
  })
})

describe.each(ENGINES)('access log on %s', (engine) => {
  test('any string in any field is written and read back (cut on code points, lone surrogates and NUL removed)', async () => {
    const db = await engines.open(engine)
    const text = fc.string({ unit: 'binary', maxLength: 400 })
    await fc.assert(
      fc.asyncProperty(text, text, text, text, text, text, text, async (actor, address, action, number, party, key, value) => {
        const [seq] = await appendEntries(db, [entry({ actor, address, action, details: { number, party, [key]: value, q: value } })])
        const r = await db.query<{ actor: string; details: Record<string, unknown> }>(
          'SELECT actor, details FROM access_log WHERE seq = $1',
          [seq],
        )
        expect(r.rows).toHaveLength(1)
        expect(r.rows[0]!.actor).not.toMatch(/\u0000/)
      }),
      { numRuns: 60 },
    )
    expect((await verifyLog(db)).intact).toBe(true)
  }, 120_000)

  test('a search by party or by one of several numbers is found by the log filters', async () => {
    const db = await engines.open(engine)
    await appendEntries(db, [
      entry({ action: 'search', details: { q: 'refund', party: '15551230000', numbers: '18323232323,18005550100' } }),
      entry({ action: 'export', details: { what: { numbers: '18005550100', party: '15559990000' }, format: 'csv' } }),
    ])
    expect((await listEntries(db, { party: '15551230000' }, 10)).entries.map((e) => e.action)).toEqual(['search'])
    expect((await listEntries(db, { number: '18005550100' }, 10)).entries.map((e) => e.action).sort()).toEqual(['export', 'search'])
    expect((await listEntries(db, { party: '15559990000' }, 10)).entries.map((e) => e.action)).toEqual(['export'])
    // A number typed as a person writes it finds the same entries, alone or one of several.
    for (const typed of ['(800) 555-0100', '8005550100', '+1 800 555 0100'])
      expect((await listEntries(db, { number: typed }, 10)).entries.map((e) => e.action).sort(), typed).toEqual(['export', 'search'])
    expect((await listEntries(db, { number: '(832) 323-2323' }, 10)).entries.map((e) => e.action)).toEqual(['search'])
  }, 60_000)

  test('the party filter finds a customer however each request named them: with or without the 1, formatted or not', async () => {
    const db = await engines.open(engine)
    await appendEntries(db, [
      entry({ action: 'thread.view', details: { number: '18005550100', party: '4155550113' } }),
      entry({ action: 'customer.view', details: { party: '14155550113' } }),
      entry({ action: 'search', details: { q: 'x', party: '555' } }),
      entry({ action: 'thread.view', details: { number: '18005550100', party: '14155550199' } }),
      // Searches and exports keep the party as it was typed.
      entry({ action: 'search', details: { q: 'y', party: '+1 (415) 555-0113' } }),
      entry({ action: 'search.export', details: { what: { party: '415.555.0113' }, format: 'csv' } }),
    ])
    for (const typed of ['4155550113', '14155550113', '+1 (415) 555-0113', '415.555.0113'])
      expect((await listEntries(db, { party: typed }, 10)).entries.map((e) => e.action).sort(), typed).toEqual([
        'customer.view',
        'search',
        'search.export',
        'thread.view',
      ])
    // A partial number names no one customer: only entries that logged that same text.
    expect((await listEntries(db, { party: '555' }, 10)).entries.map((e) => e.action)).toEqual(['search'])
  }, 60_000)

  test('details too long to keep still name the number and the customer read; a number with a + and a list of customers are found', async () => {
    const db = await engines.open(engine)
    const padding = '\u0001'.repeat(300)
    await appendEntries(db, [
      // Padded to push the details past what is kept: before, the columns came from the cut details, empty.
      entry({
        action: 'search',
        details: {
          party: `${'\u000b'.repeat(50)}14155550123`,
          numbers: `${'\u000b'.repeat(280)}18004840451`,
          tz: padding,
          cursor: padding,
        },
      }),
      entry({ action: 'search', details: { q: 'x', numbers: '+18004840452' } }),
      entry({
        action: 'views.counts',
        details: { views: 2, counted: 2, numbers: ['18004840453'], parties: ['14155550124', '14155550125'] },
      }),
    ])
    const [padded] = (await listEntries(db, { party: '14155550123' }, 10)).entries
    expect(padded).toMatchObject({ action: 'search', number: '18004840451', party: '14155550123', details: { truncated: true } })
    expect((await listEntries(db, { number: '18004840451' }, 10)).entries).toHaveLength(1)
    expect((await listEntries(db, { number: '18004840452' }, 10)).entries.map((e) => e.number)).toEqual(['18004840452'])
    for (const party of ['14155550124', '(415) 555-0125'])
      expect(
        (await listEntries(db, { party }, 10)).entries.map((e) => e.action),
        party,
      ).toEqual(['views.counts'])
    expect((await listEntries(db, { number: '18004840453' }, 10)).entries.map((e) => e.action)).toEqual(['views.counts'])
    expect((await verifyLog(db)).intact).toBe(true)
  }, 60_000)

  test('a read over many numbers and customers is found by the last of them too (only the first 25 were kept)', async () => {
    const db = await engines.open(engine)
    const numbers = Array.from({ length: 300 }, (_, i) => String(18005550000 + i))
    const parties = Array.from({ length: 120 }, (_, i) => String(14155550000 + i))
    await appendEntries(db, [
      entry({ action: 'search.export', details: { what: { numbers: numbers.join(','), q: 'x' }, format: 'csv' } }),
      entry({ action: 'views.counts', details: { views: 1, counted: 1, parties } }),
    ])
    for (const n of [numbers[0]!, numbers[58]!, numbers[299]!])
      expect(
        (await listEntries(db, { number: n }, 10)).entries.map((e) => e.action),
        n,
      ).toEqual(['search.export'])
    expect((await listEntries(db, { party: parties[119]! }, 10)).entries.map((e) => e.action)).toEqual(['views.counts'])
    // The column holds the whole list, each member whole (it ended in a cut number, "88…").
    const [entryOf] = (await listEntries(db, { number: numbers[299]! }, 10)).entries
    expect(entryOf!.number!.split(',')).toEqual(numbers)
    expect((await verifyLog(db)).intact).toBe(true)
  }, 60_000)

  test('the writer commits each caller’s entry; one entry the database refuses fails only its own caller', async () => {
    const db = await engines.open(engine)
    const w = createLogWriter(db)
    const results = await Promise.allSettled([
      w.write(entry({ actor: 'a' })),
      w.write(entry({ actor: 'b', via: 'not-a-via' })),
      w.write(entry({ actor: 'c' })),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    const rows = await db.query<{ actor: string }>('SELECT actor FROM access_log ORDER BY seq')
    expect(rows.rows.map((r) => r.actor)).toEqual(['a', 'c'])
    expect((await verifyLog(db)).message).toBe('Log intact: entries 1–2 verified.')
  }, 60_000)

  test('an entry changed or removed with direct SQL is named; the retention checkpoint keeps the rest verifiable', async () => {
    const db = await engines.open(engine)
    const many = Array.from({ length: 6 }, (_, i) => entry({ at: new Date(T0 + i * 86_400_000), actor: `u${i + 1}` }))
    await appendEntries(db, many)
    expect(await verifyLog(db)).toMatchObject({ intact: true, first: '1', last: '6' })
    // Entries 1–2 are older than 4 days at T0 + 6 days: pruned, and a checkpoint (entry 7) written.
    expect(await purgeAccessLog(db, 4, T0 + 6 * 86_400_000)).toBe(2)
    const afterPurge = await verifyLog(db)
    expect(afterPurge).toMatchObject({ intact: true, first: '3', last: '7' })
    // An attacker with database access disables the append-only trigger and edits entry 4.
    await db.query('ALTER TABLE access_log DISABLE TRIGGER access_log_append_only')
    await db.query("UPDATE access_log SET actor = 'someone else' WHERE seq = 4")
    expect((await verifyLog(db)).problem).toMatchObject({ seq: '4', kind: 'changed' })
    await db.query("UPDATE access_log SET actor = 'u4' WHERE seq = 4")
    expect((await verifyLog(db)).intact).toBe(true)
    await appendEntries(db, [entry({ actor: 'u8' }), entry({ actor: 'u9' })])
    await db.query('DELETE FROM access_log WHERE seq = 9')
    expect((await verifyLog(db)).problem).toMatchObject({ seq: '9', kind: 'head' })
    await db.query('DELETE FROM access_log WHERE seq = 5')
    expect((await verifyLog(db)).problem).toMatchObject({ seq: '5', kind: 'missing' })
  }, 60_000)

  test('a cut of the newest entries that sets the head row back verifies by itself; a head noted outside the database shows it', async () => {
    const db = await engines.open(engine)
    await appendEntries(
      db,
      Array.from({ length: 6 }, (_, i) => entry({ actor: `u${i + 1}` })),
    )
    const noted = (await logAnchor(db))!
    expect(noted.seq).toBe(6n)
    expect(parseAnchor(`${noted.seq}:${noted.hash}`)).toEqual(noted)
    expect(parseAnchor('6:abc')).toBeNull()
    expect(await verifyLog(db, noted)).toMatchObject({ intact: true, message: 'Log intact: entries 1–6 verified, entry 6 as noted.' })
    // With database access: entries 5 and 6 deleted, the head set back to entry 4.
    await db.query('ALTER TABLE access_log DISABLE TRIGGER access_log_append_only')
    await db.query('DELETE FROM access_log WHERE seq > 4')
    await db.query('UPDATE access_log_head SET seq = 4, hash = (SELECT hash FROM access_log WHERE seq = 4) WHERE one')
    expect((await verifyLog(db)).intact).toBe(true)
    expect((await verifyLog(db, noted)).problem).toMatchObject({ seq: '6', kind: 'anchor' })
    expect((await verifyLog(db, noted)).message).toMatch(/its newest entries were cut/)
    // The same number of entries written again after the cut: the noted hash is not there.
    await db.query('ALTER TABLE access_log ENABLE TRIGGER access_log_append_only')
    await appendEntries(db, [entry({ actor: 'x5' }), entry({ actor: 'x6' })])
    expect((await verifyLog(db)).intact).toBe(true)
    expect((await verifyLog(db, noted)).problem).toMatchObject({ seq: '6', kind: 'anchor' })
  }, 60_000)

  test('a noted head the retention purge has passed cannot vouch for the log: only the last purged entry, against its checkpoint', async () => {
    const db = await engines.open(engine)
    const many = Array.from({ length: 6 }, (_, i) => entry({ at: new Date(T0 + i * 86_400_000), actor: `u${i + 1}` }))
    await appendEntries(db, many)
    const hashOf = async (seq: number) =>
      (await db.query<{ hash: string }>('SELECT hash FROM access_log WHERE seq = $1', [seq])).rows[0]!.hash
    const one = { seq: 1n, hash: await hashOf(1) }
    const two = { seq: 2n, hash: await hashOf(2) }
    // Entries 1–2 purged by retention (a checkpoint records 2 and its hash).
    expect(await purgeAccessLog(db, 4, T0 + 6 * 86_400_000)).toBe(2)
    expect(await verifyLog(db, two)).toMatchObject({ intact: true })
    expect(await verifyLog(db, { seq: 2n, hash: 'f'.repeat(64) })).toMatchObject({ intact: false, problem: { kind: 'anchor' } })
    const older = await verifyLog(db, one)
    expect(older).toMatchObject({ intact: false, problem: { seq: '1', kind: 'anchor' } })
    expect(older.message).toMatch(/was purged since .* check with a newer one/)
  }, 60_000)

  test('a forged retention checkpoint does not hide the removal of the log’s start', async () => {
    const db = await engines.open(engine)
    await appendEntries(
      db,
      Array.from({ length: 6 }, (_, i) => entry({ actor: `u${i + 1}` })),
    )
    const four = await db.query<{ hash: string }>('SELECT hash FROM access_log WHERE seq = 4')
    // With database access: entries 1–4 deleted, and a "checkpoint" put in at seq 4 claiming the
    // purge removed them, its own hashes junk (the walk skips a row at or below prunedThrough).
    await db.query('ALTER TABLE access_log DISABLE TRIGGER access_log_append_only')
    await db.query('DELETE FROM access_log WHERE seq <= 4')
    await db.query(
      `INSERT INTO access_log (at, actor, via, address, action, number, party, details, seq, prev_hash, hash)
       VALUES (now(), 'system', 'system', '', 'log.checkpoint', NULL, NULL, $1::jsonb, 4, 'x', 'x')`,
      [JSON.stringify({ prunedThrough: 4, prunedHash: four.rows[0]!.hash })],
    )
    const verdict = await verifyLog(db)
    expect(verdict.intact).toBe(false)
    expect(verdict.problem).toMatchObject({ seq: '4', kind: 'changed' })
    expect(verdict.message).toMatch(/not a verified link of the chain/)
  }, 60_000)

  test('signed heads kept outside the database: a purge of minutes-old entries under a forged checkpoint, a cut tail and a re-hash are caught', async () => {
    const db = await engines.open(engine)
    const dir = mkdtempSync(join(tmpdir(), 'sb-heads-'))
    try {
      const key = loadSigningKey(join(dir, 'log.key'))
      const heads = [signHead(key, { seq: 0n, hash: (await logAnchor(db))?.hash ?? '0'.repeat(64) }, new Date(T0 - 60_000))]
      await appendEntries(
        db,
        Array.from({ length: 24 }, (_, i) => entry({ at: new Date(T0 + i * 1000), actor: `u${i + 1}` })),
      )
      heads.push(signHead(key, (await logAnchor(db))!, new Date(T0 + 60_000)))
      // Signed, read back: a line changed by hand is refused.
      const text = heads.map((h) => JSON.stringify(h)).join('\n')
      expect(readSignedHeads(text, key)).toEqual(heads)
      expect(() => readSignedHeads(text.replace(/"seq":"24"/, '"seq":"23"'), key)).toThrow(/not a head signed with this server's key/)
      expect(await verifyLog(db, null, { heads, retainDays: 365 })).toMatchObject({ intact: true, first: '1', last: '24' })

      // With database access: entries 1–20, minutes old, deleted, and a checkpoint appended as the
      // purge writes one (a real link of the chain, with the hash of entry 20 and a retention).
      const twenty = await db.query<{ hash: string }>('SELECT hash FROM access_log WHERE seq = 20')
      await db.query('ALTER TABLE access_log DISABLE TRIGGER access_log_append_only')
      await db.query('DELETE FROM access_log WHERE seq <= 20')
      await db.query('ALTER TABLE access_log ENABLE TRIGGER access_log_append_only')
      await appendEntries(db, [
        entry({
          at: new Date(T0 + 120_000),
          actor: 'switchboard',
          via: 'system',
          address: '',
          action: 'log.checkpoint',
          details: { prunedThrough: 20, prunedHash: twenty.rows[0]!.hash, pruned: 20, retainDays: 365 },
        }),
      ])
      // On its own the chain verifies (the weakness the signed heads close)...
      expect((await verifyLog(db)).intact).toBe(true)
      // ...a retention shorter than the server's is seen...
      expect((await verifyLog(db, null, { retainDays: 400 })).message).toMatch(/claims a retention of 365 days, but this server keeps 400/)
      // ...and the signed heads date the purged entries: written after a head signed a minute
      // before, nowhere near 365 days before the purge.
      const verdict = await verifyLog(db, null, { heads, retainDays: 365 })
      expect(verdict).toMatchObject({ intact: false, problem: { kind: 'changed' } })
      expect(verdict.message).toMatch(/Entries 1–20 were written after .* less than 365 days before the purge/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test('a head signed before a cut of the newest entries, or before a re-hash from an entry on, shows it', async () => {
    const db = await engines.open(engine)
    const dir = mkdtempSync(join(tmpdir(), 'sb-heads-'))
    try {
      const key = loadSigningKey(join(dir, 'log.key'))
      await appendEntries(
        db,
        Array.from({ length: 6 }, (_, i) => entry({ actor: `u${i + 1}` })),
      )
      const heads = [signHead(key, (await logAnchor(db))!, new Date(T0))]
      await db.query('ALTER TABLE access_log DISABLE TRIGGER access_log_append_only')
      await db.query('DELETE FROM access_log WHERE seq > 4')
      await db.query('UPDATE access_log_head SET seq = 4, hash = (SELECT hash FROM access_log WHERE seq = 4) WHERE one')
      await db.query('ALTER TABLE access_log ENABLE TRIGGER access_log_append_only')
      expect((await verifyLog(db)).intact).toBe(true)
      // Entries written again to the same count: the signed hash of entry 6 is not there.
      await appendEntries(db, [entry({ actor: 'x5' }), entry({ actor: 'x6' })])
      expect((await verifyLog(db)).intact).toBe(true)
      const verdict = await verifyLog(db, null, { heads })
      expect(verdict.problem).toMatchObject({ seq: '6', kind: 'anchor' })
      expect(verdict.message).toMatch(/a head signed at .* names/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  test('nothing is chained in at start: a row put in with no place in the chain stays outside it, named', async () => {
    const db = await engines.open(engine)
    await appendEntries(db, [entry({ actor: 'u1' })])
    await db.query(
      `INSERT INTO access_log (at, actor, via, address, action, details) VALUES ($1, 'ada', 'password', '10.0.0.9', 'user.add', '{}'::jsonb)`,
      [new Date(T0 - 86_400_000)],
    )
    // A server starting on it (team access's start: its purge, and what used to chain such rows in) leaves it where it is.
    const access = createAccess(accessConfigFrom({ ACCESS: 'password' }), { db, log: () => {} })
    await access.flush()
    await access.close()
    expect((await verifyLog(db)).problem).toMatchObject({ kind: 'unchained' })
  }, 60_000)

  test('entries appended while the chain is verified are no break; an entry written past the head is one', async () => {
    const db = await engines.open(engine)
    await appendEntries(db, [entry({ actor: 'u1' }), entry({ actor: 'u2' }), entry({ actor: 'u3' })])
    // Two reads logged by other requests right after the verify has read the head: on a busy
    // server they land between its statements.
    let appended = false
    const busy: Queryable = {
      query: async (sql, params) => {
        const r = await db.query(sql, params)
        if (!appended && sql.includes('access_log_head')) {
          appended = true
          await appendEntries(db, [entry({ actor: 'u4' }), entry({ actor: 'u5' })])
        }
        return r as never
      },
    }
    expect(await verifyLog(busy)).toMatchObject({ intact: true, first: '1', last: '3' })
    expect(appended).toBe(true)
    expect(await verifyLog(db)).toMatchObject({ intact: true, first: '1', last: '5' })
    // Someone with database access adds an entry after the head without moving it.
    await db.query(
      `INSERT INTO access_log (at, actor, via, address, action, details, seq, prev_hash, hash)
       VALUES (now(), 'mallory', 'password', '10.0.0.9', 'thread.view', '{}'::jsonb, 9, 'x', 'y')`,
    )
    expect((await verifyLog(db)).problem).toMatchObject({ seq: '9', kind: 'unchained' })
  }, 60_000)
})

describe('the chain with two servers on one PostgreSQL', () => {
  const postgres = STACK_ENGINES.find((e) => e.name === 'postgres')!
  test('both append at once, each from the head it last wrote: every entry lands once, in one unbroken chain', async () => {
    const opened = await postgres.open()
    const second = await opened.another!()
    try {
      const a = opened.db
      const b = second
      // Each server learns the head by writing once; then they race, so each one's known head is
      // stale most of the time and its statement must find that out.
      await appendEntries(a, [entry({ actor: 'a0' })])
      await appendEntries(b, [entry({ actor: 'b0' })])
      const writes = Array.from({ length: 60 }, (_, i) =>
        appendEntries(i % 2 ? a : b, [entry({ actor: `w${i}` }), ...(i % 3 === 0 ? [entry({ actor: `w${i}x` })] : [])]),
      )
      const seqs = (await Promise.all(writes)).flat()
      expect(new Set(seqs).size).toBe(seqs.length)
      expect(await verifyLog(a)).toMatchObject({ intact: true, first: '1', last: String(seqs.length + 2) })
      const actors = await a.query<{ actor: string }>('SELECT actor FROM access_log ORDER BY seq')
      expect(actors.rows.map((r) => r.actor).sort()).toEqual(
        ['a0', 'b0', ...Array.from({ length: 60 }, (_, i) => [`w${i}`, ...(i % 3 === 0 ? [`w${i}x`] : [])]).flat()].sort(),
      )
    } finally {
      await second.close()
      await opened.close()
    }
  }, 60_000)
})
