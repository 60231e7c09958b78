import { isRole, ROLE_WORDS } from '../../contract/roles.ts'
import type { Role } from '../http-types.ts'
import type { Queryable } from '../db/types.ts'
import { DEFAULT_SCRYPT, hashPassword, passwordProblem, type ScryptParams } from './passwords.ts'

/**
 * Users in the database, shared by the admin routes and the `npm run users` command line. Names
 * are lower-cased: "Alice" and "alice" are one user.
 */

export interface UserRow {
  name: string
  role: Role
  disabled: boolean
  createdAt: string
  updatedAt: string
}

/** A user's problem, in words, for the caller to turn into a 400/404/409 or a CLI error. */
export class UserError extends Error {
  override name = 'UserError'
  constructor(
    readonly code: 'invalid' | 'not_found' | 'exists' | 'last_admin',
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

// No '@', '+' or '..': names travel in paths (/api/auth/users/NAME), where the app's path checks
// refuse those characters before routing.
const NAME = /^[a-z0-9](?:[a-z0-9_-]|\.(?!\.)){0,63}$/

export function normaliseName(raw: string): string {
  return raw.trim().toLowerCase()
}

/** The user name, lower-cased, or a UserError saying what is wrong with it. */
export function checkName(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new UserError('invalid', 'name', 'name is required.')
  const name = normaliseName(raw)
  if (!NAME.test(name))
    throw new UserError(
      'invalid',
      'name',
      'name must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit (no "..").',
    )
  return name
}

export function checkRole(raw: unknown): Role {
  if (isRole(raw)) return raw
  throw new UserError('invalid', 'role', `role must be ${ROLE_WORDS}.`)
}

/** `name`, when known, is a word the password must not be built from. */
export function checkPassword(raw: unknown, name?: string): string {
  if (typeof raw !== 'string' || raw === '') throw new UserError('invalid', 'password', 'password is required.')
  const problem = passwordProblem(raw, name ? [name] : [])
  if (problem) throw new UserError('invalid', 'password', problem)
  return raw
}

interface DbUser extends Record<string, unknown> {
  name: string
  role: Role
  disabled: boolean
  created_at: Date | string
  updated_at: Date | string
}

const iso = (d: Date | string) => new Date(d).toISOString()
const toRow = (u: DbUser): UserRow => ({
  name: u.name,
  role: u.role,
  disabled: u.disabled,
  createdAt: iso(u.created_at),
  updatedAt: iso(u.updated_at),
})

export async function listUsers(db: Queryable): Promise<UserRow[]> {
  const r = await db.query<DbUser>('SELECT name, role, disabled, created_at, updated_at FROM users ORDER BY name')
  return r.rows.map(toRow)
}

export async function getUser(db: Queryable, name: string): Promise<UserRow | null> {
  const r = await db.query<DbUser>('SELECT name, role, disabled, created_at, updated_at FROM users WHERE name = $1', [name])
  return r.rows[0] ? toRow(r.rows[0]) : null
}

export async function addUser(
  db: Queryable,
  input: { name: string; role: Role; password: string },
  opts: { now?: Date; scrypt?: ScryptParams; record?: Recorder } = {},
): Promise<UserRow> {
  const name = checkName(input.name)
  const role = checkRole(input.role)
  const hash = await hashPassword(checkPassword(input.password, name), opts.scrypt ?? DEFAULT_SCRYPT)
  const now = opts.now ?? new Date()
  if (opts.record) {
    const taken = await db.query('SELECT 1 FROM users WHERE name = $1', [name])
    if (taken.rows.length) throw new UserError('exists', 'name', `A user named ${name} already exists.`)
    await opts.record()
  }
  const r = await db.query<DbUser>(
    `INSERT INTO users (name, role, password_hash, disabled, created_at, updated_at) VALUES ($1, $2, $3, false, $4, $4)
     ON CONFLICT (name) DO NOTHING
     RETURNING name, role, disabled, created_at, updated_at`,
    [name, role, hash, now],
  )
  if (!r.rows[0]) throw new UserError('exists', 'name', `A user named ${name} already exists.`)
  return toRow(r.rows[0])
}

/**
 * Stores the change's access-log entry once every check has passed and before anything is
 * written: a change the log cannot record is not made, and a refused one is not logged. (Checked
 * again under the write's lock, so a race between two admins can leave the entry of a change
 * that the second check then refused.)
 */
export type Recorder = () => Promise<void>

export interface UserChange {
  role?: Role
  password?: string
  disabled?: boolean
}

/**
 * Change role, password and/or disabled in one transaction. A new password or disabling ends the
 * user's sessions (a reset must lock out whoever had the old one). The last enabled admin cannot
 * be demoted or disabled: nobody could manage users afterwards.
 */
export async function changeUser(
  db: Queryable & { transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T> },
  rawName: string,
  change: UserChange,
  opts: { now?: Date; scrypt?: ScryptParams; record?: Recorder } = {},
): Promise<UserRow> {
  const name = checkName(rawName)
  const role = change.role === undefined ? undefined : checkRole(change.role)
  const hash =
    change.password === undefined ? undefined : await hashPassword(checkPassword(change.password, name), opts.scrypt ?? DEFAULT_SCRYPT)
  const now = opts.now ?? new Date()
  if (opts.record) {
    const current = await db.query<DbUser>('SELECT name, role, disabled FROM users WHERE name = $1', [name])
    const user = current.rows[0]
    if (!user) throw new UserError('not_found', 'name', `There is no user named ${name}.`)
    const losesAdmin = user.role === 'admin' && !user.disabled && ((role !== undefined && role !== 'admin') || change.disabled === true)
    if (losesAdmin) await refuseLastAdmin(db, name, 'demote or disable', false)
    await opts.record()
  }
  return db.transaction(async (tx) => {
    const current = await tx.query<DbUser>('SELECT name, role, disabled, created_at, updated_at FROM users WHERE name = $1 FOR UPDATE', [
      name,
    ])
    const user = current.rows[0]
    if (!user) throw new UserError('not_found', 'name', `There is no user named ${name}.`)
    const losesAdmin = user.role === 'admin' && !user.disabled && ((role !== undefined && role !== 'admin') || change.disabled === true)
    if (losesAdmin) await refuseLastAdmin(tx, name, 'demote or disable')
    const r = await tx.query<DbUser>(
      `UPDATE users SET role = COALESCE($2, role), password_hash = COALESCE($3, password_hash), disabled = COALESCE($4, disabled), updated_at = $5
       WHERE name = $1 RETURNING name, role, disabled, created_at, updated_at`,
      [name, role ?? null, hash ?? null, change.disabled ?? null, now],
    )
    if (hash !== undefined || change.disabled === true) await tx.query('DELETE FROM sessions WHERE user_name = $1', [name])
    return toRow(r.rows[0]!)
  })
}

/** What went with a removed user: their saved views, private and shared. */
export interface RemovedUser {
  privateViews: number
  sharedViews: number
}

/**
 * Removes a user with their sessions and every saved view they own, the shared ones too: a view
 * has one owner who alone may change it, and nobody is left to take it over (the command line's
 * caller is an operating-system user, not a team member), so a shared view going with its owner
 * is the one outcome both doors give alike. The caller logs the counts.
 */
/**
 * What removing a user would take (their views), or the refusal it would meet: read before the
 * removal, so its access-log entry can be stored first and say what goes.
 */
export async function removalOf(db: Queryable, rawName: string): Promise<RemovedUser> {
  const name = checkName(rawName)
  const current = await db.query<DbUser>('SELECT name, role, disabled, created_at, updated_at FROM users WHERE name = $1', [name])
  const user = current.rows[0]
  if (!user) throw new UserError('not_found', 'name', `There is no user named ${name}.`)
  if (user.role === 'admin' && !user.disabled) await refuseLastAdmin(db, name, 'remove', false)
  const views = await db.query<{ shared: number; all: number }>(
    'SELECT count(*) FILTER (WHERE shared)::int AS shared, count(*)::int AS all FROM saved_views WHERE owner = $1',
    [name],
  )
  const v = views.rows[0] ?? { shared: 0, all: 0 }
  return { privateViews: v.all - v.shared, sharedViews: v.shared }
}

export async function removeUser(
  db: { transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T> },
  rawName: string,
): Promise<RemovedUser> {
  const name = checkName(rawName)
  return db.transaction(async (tx) => {
    const current = await tx.query<DbUser>('SELECT name, role, disabled, created_at, updated_at FROM users WHERE name = $1 FOR UPDATE', [
      name,
    ])
    const user = current.rows[0]
    if (!user) throw new UserError('not_found', 'name', `There is no user named ${name}.`)
    if (user.role === 'admin' && !user.disabled) await refuseLastAdmin(tx, name, 'remove')
    // Sessions go with the user (ON DELETE CASCADE); the access log keeps the name as text.
    await tx.query('DELETE FROM users WHERE name = $1', [name])
    // Views name their owner as text (no foreign key: header and local identities have no row).
    const views = await tx.query<{ shared: boolean }>('DELETE FROM saved_views WHERE owner = $1 RETURNING shared', [name])
    // When they opened others' views: a new user given the name later starts with no history.
    await tx.query('DELETE FROM saved_view_opens WHERE user_name = $1', [name])
    const shared = views.rows.filter((v) => v.shared).length
    return { privateViews: views.rows.length - shared, sharedViews: shared }
  })
}

async function refuseLastAdmin(tx: Queryable, name: string, verb: string, lock = true): Promise<void> {
  // Lock every admin row so two admins demoting each other at once cannot both pass the check.
  const others = await tx.query(`SELECT name FROM users WHERE role = 'admin' AND NOT disabled AND name <> $1${lock ? ' FOR UPDATE' : ''}`, [
    name,
  ])
  if (others.rows.length === 0)
    throw new UserError('last_admin', 'name', `${name} is the last enabled admin; add another admin before you ${verb} this one.`)
}

/** The password hash and standing of a user, for sign-in only. */
export async function credentialsOf(
  db: Queryable,
  name: string,
): Promise<{ name: string; role: Role; disabled: boolean; passwordHash: string } | null> {
  const r = await db.query<{ name: string; role: Role; disabled: boolean; password_hash: string }>(
    'SELECT name, role, disabled, password_hash FROM users WHERE name = $1',
    [name],
  )
  const u = r.rows[0]
  return u ? { name: u.name, role: u.role, disabled: u.disabled, passwordHash: u.password_hash } : null
}
