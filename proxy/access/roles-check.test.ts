import { describe, expect, test } from 'vitest'
import { ROLE_WORDS, ROLES } from '../../contract/roles.ts'
import { ENGINES, useEngines } from '../testing/engines.ts'
import { addUser, changeUser, checkRole, getUser, UserError } from './users.ts'

/**
 * contract/roles.ts is the one list of roles; the users table's CHECK is a copy written by a
 * migration (SQL files cannot read TypeScript). This holds the copy to the list on both engines,
 * so a role added to the contract without its migration fails here, not in production.
 */

const engines = useEngines()
const PASSWORD = 'Marigold-Copper-Steadily-58'

describe.each(ENGINES)('the roles of the users table on %s', (engine) => {
  test("the database's CHECK lists exactly the roles of contract/roles.ts", async () => {
    const db = await engines.open(engine)
    const r = await db.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
        WHERE c.conrelid = 'users'::regclass AND c.contype = 'c' AND pg_get_constraintdef(c.oid) LIKE '%role%'`,
    )
    expect(r.rows).toHaveLength(1)
    const listed = [...r.rows[0]!.def.matchAll(/'([^']*)'::text/g)].map((m) => m[1])
    expect(listed).toEqual([...ROLES])
    // And the database refuses what is not a role, whatever wrote it.
    await expect(
      db.query(`INSERT INTO users (name, role, password_hash, created_at, updated_at) VALUES ('mallory', 'owner', 'x', now(), now())`),
    ).rejects.toThrow(/users_role_check/)
  })

  test('every role can be given to a user, and changed to and from', async () => {
    const db = await engines.open(engine)
    const now = new Date()
    for (const role of ROLES) {
      await addUser(db, { name: `user-${role}`, role, password: PASSWORD }, { now })
      expect((await getUser(db, `user-${role}`))?.role).toBe(role)
    }
    await changeUser(db, 'user-viewer', { role: 'agent' }, { now })
    expect((await getUser(db, 'user-viewer'))?.role).toBe('agent')
    await changeUser(db, 'user-viewer', { role: 'viewer' }, { now })
    expect((await getUser(db, 'user-viewer'))?.role).toBe('viewer')
  })
})

test('checkRole takes each role and refuses anything else naming the field and the roles', () => {
  for (const role of ROLES) expect(checkRole(role)).toBe(role)
  for (const bad of ['owner', 'Admin', '', 'constructor', 'toString', null, 1]) {
    const err = (() => {
      try {
        checkRole(bad)
      } catch (e) {
        return e
      }
      return null
    })()
    expect(err, String(bad)).toBeInstanceOf(UserError)
    expect((err as UserError).field).toBe('role')
    expect((err as UserError).message).toBe(`role must be ${ROLE_WORDS}.`)
  }
})
