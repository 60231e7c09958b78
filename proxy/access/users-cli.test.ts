import { ROLE_WORDS } from '../../contract/roles.ts'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { openDb } from '../db/open.ts'
import { accessOnOpen } from './on-open.ts'
import { freshPgliteDir } from '../testing/pglite-template.ts'
import { CONTROL_SOCKET } from './control-socket.ts'
import { loadSigningKey, signHead } from './signed-heads.ts'
import { verifyPassword } from './passwords.ts'
import { call, cookieFrom } from '../testing/access-stack.ts'

/** `npm run users` as a real process on a real PGlite directory, the password piped on stdin. */

const dir = mkdtempSync(join(tmpdir(), 'sb-users-cli-'))
const env = { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '' }
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function users(args: string[], stdin = '', withEnv: NodeJS.ProcessEnv = env): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/users.mts', ...args], {
      env: withEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
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
  // Each run that opens the database opens PGlite (3 to 5 CPU-s), so this run keeps to what only a
  // process without a server shows: the first run on an empty directory, stdin, exit codes,
  // arguments refused before anything opens, and its own access-log entries. The same commands'
  // rules and words (a name that exists, roles, the last admin, passwords, the list) run beside a
  // server below, where the command reaches the server's handle through its socket in a moment.
  test('without a server: list, add; the password comes from stdin, never an argument; refusals exit 2', async () => {
    expect((await users(['list'])).out).toMatch(/No users yet/)
    const added = await users(['add', 'Ops', '--role', 'admin'], 'a long enough password\na long enough password\n')
    expect(added.err).toBe('')
    expect(added.out).toMatch(/Added ops \(admin\)/)
    expect((await users(['add', 'viv', '--role', 'viewer'], 'short\nshort\n')).err).toMatch(/at least 12 characters/)
    const refused = await users(['add', 'viv', '--role', 'viewer', '--password', 'x'])
    expect(refused.code).toBe(2)
    expect(refused.err).toMatch(/never taken from arguments/)
    expect((await users(['add', 'viv', '--role', 'owner'])).err).toContain(`role must be ${ROLE_WORDS}.`)
    expect((await users(['add', 'viv'])).err).toContain(`add needs --role ROLE: ${ROLE_WORDS}.`)
    // Asked twice and compared, piped or not: two different lines, or one, change nothing.
    const differ = await users(['add', 'viv', '--role', 'viewer'], 'viewer password 1\nviewer password 2\n')
    expect(differ.code).toBe(2)
    expect(differ.err).toMatch(/passwords differ/)
    expect((await users(['add', 'viv', '--role', 'viewer'], 'viewer password 1\n')).err).toMatch(/twice/)
    expect((await users(['list'])).out).not.toMatch(/viv/)
    expect((await users(['add', 'viv', '--role', 'viewer'], 'viewer password 1\r\nviewer password 1\r\n')).code).toBe(0)
    const db = await openDb({ dataDir: env.DATA_DIR, onOpen: [accessOnOpen] })
    try {
      const rows = await db.query<{ name: string; password_hash: string }>('SELECT name, password_hash FROM users ORDER BY name')
      expect(rows.rows.map((r) => r.name)).toEqual(['ops', 'viv'])
      // The CR of a CRLF line end is not part of the password.
      expect(await verifyPassword('viewer password 1', rows.rows[1]!.password_hash)).toBe(true)
      const log = await db.query<{ actor: string; action: string }>('SELECT actor, action FROM access_log ORDER BY id')
      expect(log.rows.map((r) => r.action)).toEqual(['user.add', 'user.add'])
      expect(log.rows.every((r) => r.actor.startsWith('cli:'))).toBe(true)
    } finally {
      await db.close()
    }
  }, 420_000)
})

/** The real server (proxy/server.ts) as a child process on its own PGlite directory; resolves with its port. */
async function startServer(dataDir: string): Promise<{ port: number; child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'proxy/server.ts'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      PORT: '0',
      HOST: '127.0.0.1',
      ACCESS: 'password',
      INDEX: 'off',
      LOG_REQUESTS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 120 s: ${out}`)), 120_000)
    child.stdout!.on('data', () => {
      const m = /Switchboard on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited (${code}): ${out}`))
    })
  })
  return { port, child, output: () => out }
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

describe('verify-log against a file of signed heads', () => {
  test('each line is checked with LOG_SIGNING_KEY_FILE first; the log is held to the heads; a changed line or a cut tail exits 1', async () => {
    const dataDir = join(dir, 'signed')
    await freshPgliteDir(dataDir)
    const keyFile = join(dir, 'log.key')
    const key = loadSigningKey(keyFile)
    const withKey = { ...env, DATA_DIR: dataDir, LOG_SIGNING_KEY_FILE: keyFile }
    const heads = join(dir, 'heads-copy')
    // The empty log's head: what a server writes at its first start.
    const empty = signHead(key, { seq: 0n, hash: '0'.repeat(64) }, new Date())
    writeFileSync(heads, `${JSON.stringify(empty)}\n`)
    const intact = await users(['verify-log', '--anchor', heads], '', withKey)
    expect(intact.out).toMatch(/Log intact/)
    expect(intact.code).toBe(0)
    // A head of an entry the log does not hold: its newest entries were cut.
    writeFileSync(heads, `${JSON.stringify(signHead(key, { seq: 7n, hash: 'a'.repeat(64) }, new Date()))}\n`)
    const cut = await users(['verify-log', '--anchor', heads], '', withKey)
    expect(cut.code).toBe(1)
    expect(cut.out).toMatch(/Entry 7, in a head signed at .* is gone/)
    // A line changed by hand (or signed with another key) is refused before the log is read.
    writeFileSync(heads, `${JSON.stringify({ ...empty, seq: '3' })}\n`)
    const forged = await users(['verify-log', '--anchor', heads], '', withKey)
    expect(forged.code).toBe(1)
    expect(forged.out).toMatch(/not a head signed with this server's key/)
    // Without the key the file cannot be checked: said, not guessed.
    expect((await users(['verify-log', '--anchor', heads], '', { ...env, DATA_DIR: dataDir })).err).toMatch(/LOG_SIGNING_KEY_FILE/)
  }, 120_000)
})

describe('npm run users beside a running server on PGlite', () => {
  test('the command asks the server over its owner-only socket: the user signs in at once and is still there after a restart', async () => {
    const dataDir = join(dir, 'beside')
    const besideEnv = { ...env, DATA_DIR: dataDir }
    // A migrated, empty database (the run above is the one on an empty directory); the server
    // makes the directory owner-only again at every start, which the check below reads.
    await freshPgliteDir(dataDir)
    let server = await startServer(dataDir)
    try {
      const socket = join(dataDir, CONTROL_SOCKET)
      expect(statSync(socket).mode & 0o777).toBe(0o600)
      expect(statSync(dataDir).mode & 0o077).toBe(0)
      const added = await users(['add', 'ops', '--role', 'admin'], 'operations desk phrase\noperations desk phrase\n', besideEnv)
      expect(added.err).toBe('')
      expect(added.out).toMatch(/Added ops \(admin\)/)
      const signIn = () => call(server.port, 'POST', '/api/auth/signin', { json: { name: 'ops', password: 'operations desk phrase' } })
      const first = await signIn()
      expect(first.status).toBe(200)
      // The server made the change, so its access log holds it, by the command line's user.
      const log = await call(server.port, 'GET', '/api/auth/access-log?action=user.add', { headers: { cookie: cookieFrom(first) } })
      expect(log.json().entries).toEqual([expect.objectContaining({ actor: expect.stringMatching(/^cli:/), action: 'user.add' })])
      // Refusals come back in the same words as without a server.
      expect((await users(['add', 'ops', '--role', 'admin'], 'operations desk phrase\noperations desk phrase\n', besideEnv)).err).toMatch(
        /already exists/,
      )
      // The chain is checked by the running server too (the command refused: "the data directory is in use").
      const verified = await users(['verify-log'], '', besideEnv)
      expect(verified.err).toBe('')
      expect(verified.out).toMatch(/intact/i)
      // A head noted from the server's log: one the log no longer holds, or holds with another hash, fails.
      const cut = await users(['verify-log', '--anchor', `999999:${'a'.repeat(64)}`], '', besideEnv)
      expect(cut.code).toBe(1)
      expect(cut.out).toMatch(/Entry 999999, noted outside the database as the chain's head, is gone/)
      const other = await users(['verify-log', `--anchor=1:${'0'.repeat(64)}`], '', besideEnv)
      expect(other.code).toBe(1)
      expect(other.out).toMatch(/Entry 1 is not the entry noted outside the database/)
      expect((await users(['verify-log', '--anchor', 'head'], '', besideEnv)).err).toMatch(/--anchor takes N:HASH/)

      // A user's whole life, each step made by the server and logged there.
      expect((await users(['add', 'viv', '--role', 'viewer'], 'viewer password 1\nviewer password 1\n', besideEnv)).code).toBe(0)
      expect((await users(['role', 'viv', 'admin'], '', besideEnv)).out).toMatch(/viv is now admin/)
      expect((await users(['passwd', 'viv'], 'second password 2\nsecond password 2\n', besideEnv)).code).toBe(0)
      expect((await users(['disable', 'viv'], '', besideEnv)).code).toBe(0)
      const list = await users(['list'], '', besideEnv)
      expect(list.out).toMatch(/^ops\tadmin\tcreated /m)
      expect(list.out).toMatch(/^viv\tadmin\tdisabled\tcreated /m)
      // viv is a disabled admin: removing ops would leave nobody who can manage users.
      const lastAdmin = await users(['remove', 'ops'], '', besideEnv)
      expect(lastAdmin.code).toBe(2)
      expect(lastAdmin.err).toMatch(/last enabled admin/)
      expect((await users(['enable', 'viv'], '', besideEnv)).out).toMatch(/viv can sign in again/)
      const viv = (password: string) => call(server.port, 'POST', '/api/auth/signin', { json: { name: 'viv', password } })
      expect((await viv('viewer password 1')).status).toBe(401)
      const vivIn = await viv('second password 2')
      expect(vivIn.status).toBe(200)
      expect((await users(['remove', 'ops'], '', besideEnv)).out).toMatch(/Removed ops/)
      expect((await signIn()).status).toBe(401)
      const changes = await call(server.port, 'GET', '/api/auth/access-log', { headers: { cookie: cookieFrom(vivIn) } })
      const cli = (changes.json().entries as Array<{ actor: string; action: string }>).filter((e) => e.actor.startsWith('cli:'))
      expect(cli.map((e) => e.action).reverse()).toEqual([
        'user.add',
        'user.add',
        'user.change',
        'user.change',
        'user.change',
        'user.change',
        'user.remove',
      ])
      expect((await users(['add', 'ops', '--role', 'admin'], 'operations desk phrase\noperations desk phrase\n', besideEnv)).code).toBe(0)
      expect((await users(['remove', 'viv'], '', besideEnv)).code).toBe(0)

      const stopping = server
      await stopServer(server.child)
      expect(existsSync(socket)).toBe(false)
      // The chain's head, noted in the server's own log at close, is one verify-log accepts.
      const noted = [...stopping.output().matchAll(/access log: head entry (\d+), hash ([0-9a-f]{64})/g)].at(-1)
      expect(noted).toBeDefined()
      const anchored = await users(['verify-log', '--anchor', `${noted![1]}:${noted![2]}`], '', besideEnv)
      expect(anchored.code).toBe(0)
      expect(anchored.out).toMatch(new RegExp(`intact.*entry ${noted![1]} as noted`))
      server = await startServer(dataDir)
      expect((await signIn()).status).toBe(200)

      // A server killed outright leaves its socket file behind; the next one replaces it.
      server.child.kill('SIGKILL')
      await stopServer(server.child)
      expect(existsSync(socket)).toBe(true)
      server = await startServer(dataDir)
      expect((await users(['role', 'ops', 'viewer'], '', besideEnv)).err).toMatch(/last enabled admin/)
      expect((await signIn()).status).toBe(200)
    } finally {
      await stopServer(server.child)
    }
  }, 300_000)
})
