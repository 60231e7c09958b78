// `npm run users -- <command>`: manage Switchboard's sign-in users (ACCESS=password) from the
// command line, in the same database the server uses (DATA_DIR or DATABASE_URL, from the
// environment or .env, exactly as the server reads them). Beside a running server on PGlite the
// command asks that server (over DATA_DIR/control.sock), which makes the change itself.
//
//   add NAME --role ROLE            create a user (password asked for; the roles: contract/roles.ts)
//   passwd NAME                     set a new password (ends the user's sessions)
//   role NAME ROLE                  change the role
//   disable NAME / enable NAME      stop / allow sign-in (disabling ends sessions)
//   remove NAME                     delete the user (and their sessions and saved views, shared ones too)
//   list                            list users
//
// Passwords are read from the terminal without echo, or from standard input when it is not a
// terminal (`printf '%s\n%s\n' "$PW" "$PW" | npm run users -- add ops --role admin`); never from an
// argument, where they would sit in the shell history and the process list.
import { existsSync, readFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROLE_WORDS } from '../contract/roles.ts'
import { insertEntry } from '../proxy/access/access-log.ts'
import { loadSigningKey, readSignedHeads, type SignedHead } from '../proxy/access/signed-heads.ts'
import {
  askServer,
  CONTROL_SOCKET,
  performCommand,
  type ControlAnswer,
  type ControlCommand,
  type ControlRequest,
} from '../proxy/access/control-socket.ts'
import { checkName, checkPassword, checkRole, UserError } from '../proxy/access/users.ts'
import { readDotEnv } from '../proxy/config.ts'
import { openDb } from '../proxy/db/open.ts'
import { accessOnOpen } from '../proxy/access/on-open.ts'
import { baselineWasmOnly } from '../proxy/db/pglite-spawn.ts'
import type { Db } from '../proxy/db/types.ts'
import { IndexConfigError, parseIndexConfig } from '../proxy/index/config.ts'

const USAGE = `Usage: npm run users -- <command>
  add NAME --role ROLE           create a user; the password is asked for (or read from stdin: twice, one line each)
  passwd NAME                    set a new password; ends the user's sessions
  role NAME ROLE                 change a user's role
  disable NAME                   stop a user signing in; ends their sessions
  enable NAME                    allow a disabled user to sign in again
  remove NAME                    delete a user and their saved views (shared ones too)
  list                           list the users
  verify-log [--anchor N:HASH|FILE] recompute the access log's hash chain; exit 1 if an entry was changed or removed
                                 (--anchor: a head the server's log noted, which the log must still hold)
ROLE is ${ROLE_WORDS}.`

class UsageError extends Error {}

/**
 * The password twice, compared, piped or typed: two lines from stdin when it is piped (two
 * different lines piped in added the user with the first), prompts with no echo on a terminal.
 */
async function readPassword(prompt: string): Promise<string> {
  const stdin = process.stdin
  if (!stdin.isTTY) {
    const chunks: Buffer[] = []
    for await (const c of stdin) chunks.push(c as Buffer)
    const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)
    const [first = '', again] = lines
    if (again === undefined || again === '')
      throw new UsageError('Pipe the password twice, one line each (as a terminal asks for it twice); nothing was changed.')
    if (first !== again) throw new UsageError('The two passwords differ; nothing was changed.')
    return first
  }
  const ask = (question: string) =>
    new Promise<string>((resolvePw, reject) => {
      process.stderr.write(question)
      stdin.setRawMode(true)
      stdin.resume()
      stdin.setEncoding('utf8')
      let typed = ''
      const done = (fn: () => void) => {
        stdin.setRawMode(false)
        stdin.pause()
        stdin.off('data', onData)
        process.stderr.write('\n')
        fn()
      }
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === '\r' || ch === '\n') return done(() => resolvePw(typed))
          if (ch === '\u0003') return done(() => reject(new UsageError('Cancelled.')))
          if (ch === '\u007f' || ch === '\b') typed = Array.from(typed).slice(0, -1).join('')
          else if (ch >= ' ') typed += ch
        }
      }
      stdin.on('data', onData)
    })
  const first = await ask(prompt)
  const again = await ask('Type it again: ')
  if (first !== again) throw new UsageError('The two passwords differ; nothing was changed.')
  return first
}

function osUser(): string {
  try {
    return userInfo().username
  } catch {
    return 'unknown' // no passwd entry (containers)
  }
}

/** What the command line says once a command has succeeded. */
function saying(req: ControlRequest, answer: Extract<ControlAnswer, { ok: true }>): string[] {
  const name = req.name ?? ''
  switch (req.command) {
    case 'list': {
      const users = answer.users ?? []
      if (users.length === 0) return ['No users yet. Create the first admin: npm run users -- add NAME --role admin']
      return users.map((u) => `${u.name}\t${u.role}${u.disabled ? '\tdisabled' : ''}\tcreated ${u.createdAt}`)
    }
    case 'add':
      return [`Added ${answer.user?.name ?? name} (${answer.user?.role ?? req.role}).`]
    case 'passwd':
      return [`Password changed for ${name}; their sessions have ended.`]
    case 'role':
      return [`${name} is now ${req.role}.`]
    case 'disable':
      return [`${name} can no longer sign in; their sessions have ended.`]
    case 'enable':
      return [`${name} can sign in again.`]
    case 'remove': {
      const views = answer.removed ? answer.removed.privateViews + answer.removed.sharedViews : 0
      const shared = answer.removed?.sharedViews ?? 0
      return [
        views === 0
          ? `Removed ${name}.`
          : `Removed ${name} and their ${views} saved view${views === 1 ? '' : 's'}${shared ? ` (${shared} shared with the team)` : ''}.`,
      ]
    }
    case 'verify-log':
      return [answer.verdict?.message ?? '']
  }
}

/**
 * Asks the server that owns the PGlite directory, when one runs (it writes with its own handle,
 * so nothing is lost); otherwise opens the database directly, as it does for PostgreSQL.
 */
async function perform(req: ControlRequest, env: Record<string, string | undefined>): Promise<ControlAnswer> {
  const indexCfg = parseIndexConfig(env)
  const dataDir = resolve(indexCfg.dataDir)
  if (!indexCfg.databaseUrl) {
    // The chain's check takes as long as the log is long: no limit on it (the others answer at once).
    const answer = await askServer(dataDir, req, req.command === 'verify-log' ? 0 : undefined)
    if (answer) return answer
  }
  let db: Db
  try {
    db = await openDb({ dataDir, databaseUrl: indexCfg.databaseUrl ?? undefined, onOpen: [accessOnOpen] })
  } catch (err) {
    // The data directory's lock: another process (not a server that answers) holds it.
    if (err instanceof Error && err.name === 'DataDirInUseError')
      throw new UsageError(
        `${err.message}\nNo Switchboard server answered on ${join(dataDir, CONTROL_SOCKET)}, so nothing was changed. ` +
          'Wait for that process to finish, or start the server and run this command again.',
      )
    throw err
  }
  try {
    // The command line is a door too: its changes go in the access log, as the operating-system user.
    return await performCommand(db, req, async (actor, action, details) => {
      await insertEntry(db, { at: new Date(), actor, via: 'local', address: 'command line', action, details })
    })
  } finally {
    await db.close()
  }
}

/**
 * The access log's hash chain, checked from the command line (the Access log page shows the
 * same): by the running server over its socket, else over the database opened here.
 */
async function verifyLogCommand(rest: string[], env: Record<string, string | undefined>, out: (line: string) => void): Promise<void> {
  const i = rest.indexOf('--anchor')
  const anchor = i >= 0 ? rest[i + 1] : rest.find((a) => a.startsWith('--anchor='))?.slice('--anchor='.length)
  if ((i >= 0 || rest.some((a) => a.startsWith('--anchor'))) && !anchor)
    throw new UsageError('--anchor needs N:HASH, as the server log wrote it, or a file of signed heads.')
  // A file: heads the server signed (LOG_SIGNING_KEY_FILE's .heads, or lines kept elsewhere),
  // each checked here against the key before the log is held to them.
  if (anchor && !/^\d+:[0-9a-f]{64}$/.test(anchor) && existsSync(anchor)) {
    const keyFile = env.LOG_SIGNING_KEY_FILE
    if (!keyFile)
      throw new UsageError('A file of signed heads is checked with the server key: set LOG_SIGNING_KEY_FILE as the server has it.')
    let heads: SignedHead[]
    try {
      heads = readSignedHeads(readFileSync(anchor, 'utf8'), loadSigningKey(keyFile))
    } catch (err) {
      out(`${anchor}: ${err instanceof Error ? err.message : String(err)}`)
      process.exitCode = 1
      return
    }
    const answer = await perform({ command: 'verify-log', who: osUser(), heads: heads.map((h) => JSON.stringify(h)).join('\n') }, env)
    if (!answer.ok) throw new Error(answer.error.message)
    out(answer.verdict?.message ?? 'The server gave no verdict.')
    if (!answer.verdict?.intact) process.exitCode = 1
    return
  }
  const answer = await perform({ command: 'verify-log', who: osUser(), ...(anchor ? { anchor } : {}) }, env)
  if (!answer.ok) throw new Error(answer.error.message)
  out(answer.verdict?.message ?? 'The server gave no verdict.')
  if (!answer.verdict?.intact) process.exitCode = 1
}

export async function run(argv: string[], env: Record<string, string | undefined>, out: (line: string) => void): Promise<void> {
  const [command, ...rest] = argv
  if (!command || command === 'help' || command === '--help') {
    out(USAGE)
    return
  }
  if (command === 'verify-log') return verifyLogCommand(rest, env, out)
  const known: readonly string[] = ['add', 'passwd', 'role', 'disable', 'enable', 'remove', 'list']
  if (!known.includes(command)) throw new UsageError(`Unknown command "${command.slice(0, 40)}".\n${USAGE}`)
  if (rest.some((a) => /^--pass(word)?(=|$)/.test(a)))
    throw new UsageError('Passwords are never taken from arguments; you will be asked for it (or pipe it on stdin).')

  // Validate the arguments before touching the database or asking for a password.
  const req: ControlRequest = { command: command as ControlCommand, who: osUser() }
  if (command !== 'list') {
    if (!rest[0]) throw new UsageError(`${command} needs a user name.\n${USAGE}`)
    req.name = checkName(rest[0])
  }
  if (command === 'add') {
    const i = rest.indexOf('--role')
    const value = i >= 0 ? rest[i + 1] : rest.find((a) => a.startsWith('--role='))?.slice('--role='.length)
    if (!value) throw new UsageError(`add needs --role ROLE: ${ROLE_WORDS}.`)
    req.role = checkRole(value)
  }
  if (command === 'role') req.role = checkRole(rest[1])
  // Asked before the database opens (which takes a moment): the prompt comes at once.
  if (command === 'add' || command === 'passwd')
    req.password = checkPassword(await readPassword(`${command === 'add' ? 'Password' : 'New password'} for ${req.name}: `), req.name)

  const answer = await perform(req, env)
  if (!answer.ok) {
    if (answer.error.code === 'failed') throw new Error(answer.error.message)
    throw new UserError(answer.error.code, answer.error.field ?? 'name', answer.error.message)
  }
  for (const line of saying(req, answer)) out(line)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // A command opens the database for a moment: no optimising of PGlite's code that it would not use.
  baselineWasmOnly()
  try {
    await run(process.argv.slice(2), { ...readDotEnv(resolve(process.cwd(), '.env')), ...process.env }, (line) => console.log(line))
  } catch (err) {
    if (err instanceof UsageError || err instanceof UserError || err instanceof IndexConfigError) {
      console.error(err.message)
      process.exit(2)
    }
    console.error(`users: ${err instanceof Error ? err.message : String(err)}`)
    process.exit(1)
  }
}
