import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { openDb } from '../db/open.ts'
import { verifyPassword } from './passwords.ts'

/** `npm run users` as a real process on a real PGlite directory, the password piped on stdin. */

const dir = mkdtempSync(join(tmpdir(), 'sb-users-cli-'))
const env = { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '' }
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function users(args: string[], stdin = ''): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/users.mts', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, out, err })
    })
    child.stdin.end(stdin)
  })
}

describe('scripts/users.mts', () => {
  test('add, list, role, passwd, disable, remove; the password comes from stdin, never an argument', async () => {
    expect((await users(['list'])).out).toMatch(/No users yet/)
    const added = await users(['add', 'Ops', '--role', 'admin'], 'a long enough password\n')
    expect(added.err).toBe('')
    expect(added.out).toMatch(/Added ops \(admin\)/)
    expect((await users(['add', 'ops', '--role', 'admin'], 'a long enough password\n')).err).toMatch(/already exists/)
    expect((await users(['add', 'viv', '--role', 'viewer'], 'short\n')).err).toMatch(/at least 12 characters/)
    const refused = await users(['add', 'viv', '--role', 'viewer', '--password', 'x'])
    expect(refused.code).toBe(2)
    expect(refused.err).toMatch(/never taken from arguments/)
    expect((await users(['add', 'viv', '--role', 'owner'])).err).toMatch(/role must be admin or viewer/)
    expect((await users(['add', 'viv', '--role', 'viewer'], 'viewer password 1\r\n')).code).toBe(0)
    expect((await users(['role', 'viv', 'admin'])).out).toMatch(/viv is now admin/)
    expect((await users(['passwd', 'viv'], 'second password 2\n')).code).toBe(0)
    expect((await users(['disable', 'viv'])).code).toBe(0)
    const list = await users(['list'])
    expect(list.out).toMatch(/^ops\tadmin\tcreated /m)
    expect(list.out).toMatch(/^viv\tadmin\tdisabled\tcreated /m)
    // viv is a disabled admin: removing ops would leave nobody who can manage users.
    const lastAdmin = await users(['remove', 'ops'])
    expect(lastAdmin.code).toBe(2)
    expect(lastAdmin.err).toMatch(/last enabled admin/)
    expect((await users(['enable', 'viv'])).out).toMatch(/viv can sign in again/)
    expect((await users(['remove', 'ops'])).out).toMatch(/Removed ops/)
    const db = await openDb({ dataDir: env.DATA_DIR })
    try {
      const rows = await db.query<{ name: string; password_hash: string }>('SELECT name, password_hash FROM users ORDER BY name')
      expect(rows.rows.map((r) => r.name)).toEqual(['viv'])
      expect(await verifyPassword('second password 2', rows.rows[0]!.password_hash)).toBe(true)
      const log = await db.query<{ actor: string; action: string }>('SELECT actor, action FROM access_log ORDER BY id')
      expect(log.rows.map((r) => r.action)).toEqual([
        'user.add',
        'user.add',
        'user.change',
        'user.change',
        'user.change',
        'user.change',
        'user.remove',
      ])
      expect(log.rows.every((r) => r.actor.startsWith('cli:'))).toBe(true)
    } finally {
      await db.close()
    }
  }, 180_000)
})
