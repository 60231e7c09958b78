import { MOST_ROLE } from '../../contract/roles.ts'
import { chmodSync, unlinkSync } from 'node:fs'
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import type { Role } from '../http-types.ts'
import type { Db } from '../db/types.ts'
import type { Access } from './access.ts'
import { parseAnchor, verifyLog } from './log-verify.ts'
import { parseHeadLines } from './signed-heads.ts'
import {
  addUser,
  changeUser,
  checkName,
  checkRole,
  listUsers,
  removalOf,
  removeUser,
  UserError,
  type RemovedUser,
  type UserRow,
} from './users.ts'

/**
 * User management beside a running server. An embedded PGlite directory belongs to one process:
 * a second one opening it (the `npm run users` command) keeps its own copy of the pages, and
 * whatever it writes is lost. So a server on PGlite listens on a unix socket inside its
 * owner-only data directory, and the command asks the server, which writes with its own handle.
 * The directory is 0700, so only its owner can reach the socket: the file system's permissions
 * are the authentication, as for PostgreSQL's own local socket.
 *
 * One JSON request per connection, one line each way.
 */

export const CONTROL_SOCKET = 'control.sock'

export type ControlCommand = 'list' | 'add' | 'passwd' | 'role' | 'disable' | 'enable' | 'remove' | 'verify-log'
const COMMANDS: readonly ControlCommand[] = ['list', 'add', 'passwd', 'role', 'disable', 'enable', 'remove', 'verify-log']

export interface ControlRequest {
  command: ControlCommand
  name?: string
  role?: Role
  password?: string
  /** The operating-system user running the command, for the access log. */
  who: string
  /** verify-log: a head noted outside the database (`N:HASH`), which the log must still hold. */
  anchor?: string
  /** verify-log: signed heads (JSON lines) the command line has checked with the key, which the log must agree with. */
  heads?: string
}

export type ControlAnswer =
  | { ok: true; users?: UserRow[]; user?: UserRow; removed?: RemovedUser; verdict?: { intact: boolean; message: string } }
  | { ok: false; error: { code: UserError['code'] | 'failed'; field?: string; message: string } }

/** The change's record for the access log: what changed, never the password. */
export type ControlAudit = (actor: string, action: string, details: Record<string, unknown>) => Promise<void>

const MAX_REQUEST = 16 * 1024
const WHO = /^[\w.@-]{1,64}$/

/** Runs one user command on `db`, for the server's socket and for the command line alike. */
export async function performCommand(db: Db, req: ControlRequest, audit: ControlAudit): Promise<ControlAnswer> {
  const actor = `cli:${WHO.test(req.who) ? req.who : 'unknown'}`
  try {
    if (req.command === 'list') return { ok: true, users: await listUsers(db) }
    // The chain as the running server's handle reads it (the command could not open a directory the server holds).
    if (req.command === 'verify-log') {
      const anchor = req.anchor === undefined ? null : parseAnchor(req.anchor)
      if (req.anchor !== undefined && !anchor)
        return {
          ok: false,
          error: {
            code: 'failed',
            field: 'anchor',
            message: '--anchor takes N:HASH as the server log wrote it (a number, a colon, 64 hex digits).',
          },
        }
      const v = await verifyLog(db, anchor, req.heads ? { heads: parseHeadLines(req.heads) } : {})
      return { ok: true, verdict: { intact: v.intact, message: v.message } }
    }
    const name = checkName(req.name)
    switch (req.command) {
      case 'add': {
        // Each entry is stored before its change: a change the log cannot record is not made.
        const role = checkRole(req.role)
        const record = () => audit(actor, 'user.add', { user: name, role })
        const user = await addUser(db, { name, role, password: req.password ?? '' }, { record })
        return { ok: true, user }
      }
      case 'passwd': {
        const record = () => audit(actor, 'user.change', { user: name, passwordReset: true })
        const user = await changeUser(db, name, { password: req.password ?? '' }, { record })
        return { ok: true, user }
      }
      case 'role': {
        const role = checkRole(req.role)
        const user = await changeUser(db, name, { role }, { record: () => audit(actor, 'user.change', { user: name, role }) })
        return { ok: true, user }
      }
      case 'disable':
      case 'enable': {
        const disabled = req.command === 'disable'
        const user = await changeUser(db, name, { disabled }, { record: () => audit(actor, 'user.change', { user: name, disabled }) })
        return { ok: true, user }
      }
      case 'remove': {
        await audit(actor, 'user.remove', { user: name, ...(await removalOf(db, name)) })
        const removed = await removeUser(db, name)
        return { ok: true, removed }
      }
    }
  } catch (err) {
    if (err instanceof UserError) return { ok: false, error: { code: err.code, field: err.field, message: err.message } }
    return { ok: false, error: { code: 'failed', message: err instanceof Error ? err.message : String(err) } }
  }
}

/** A request as received: only known commands and fields of the right type. */
function parseRequest(text: string): ControlRequest | string {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return 'The request is not JSON.'
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'The request must be a JSON object.'
  const o = v as Record<string, unknown>
  if (!COMMANDS.includes(o.command as ControlCommand)) return `command must be one of ${COMMANDS.join(', ')}.`
  for (const f of ['name', 'role', 'password', 'who', 'anchor', 'heads'])
    if (o[f] !== undefined && typeof o[f] !== 'string') return `${f} must be a string.`
  return {
    command: o.command as ControlCommand,
    name: o.name as string | undefined,
    role: o.role as Role | undefined,
    password: o.password as string | undefined,
    who: typeof o.who === 'string' ? o.who : 'unknown',
    ...(typeof o.anchor === 'string' ? { anchor: o.anchor } : {}),
    ...(typeof o.heads === 'string' ? { heads: o.heads } : {}),
  }
}

function serve(conn: Socket, db: Db, audit: ControlAudit): void {
  conn.setTimeout(30_000, () => conn.destroy())
  conn.on('error', () => {})
  let buf = ''
  let handled = false
  conn.setEncoding('utf8')
  conn.on('data', (chunk: string) => {
    if (handled) return
    buf += chunk
    const nl = buf.indexOf('\n')
    if (nl < 0 && buf.length <= MAX_REQUEST) return
    handled = true
    // The idle limit is for a connection that never sends its request: a command at work (the
    // chain's check walks the whole log, minutes on millions of entries) is not idle.
    conn.setTimeout(0)
    const req = nl < 0 ? 'The request is too long.' : parseRequest(buf.slice(0, nl))
    const answer: Promise<ControlAnswer> =
      typeof req === 'string' ? Promise.resolve({ ok: false, error: { code: 'invalid', message: req } }) : performCommand(db, req, audit)
    void answer.then((a) => conn.end(`${JSON.stringify(a)}\n`))
  })
}

export interface ControlSocket {
  path: string
  close: () => Promise<void>
}

/** Whether something answers on a unix socket (a live server), rather than a stale file. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection(path)
    c.once('connect', () => {
      c.destroy()
      resolve(true)
    })
    c.once('error', () => resolve(false))
  })
}

/**
 * Listens on DATA_DIR/control.sock (owner-only). A socket file left by a server that died is
 * removed first; one that still answers belongs to a live server, and this one refuses to start
 * beside it.
 */
export async function openControlSocket(dataDir: string, deps: { db: Db; audit: ControlAudit }): Promise<ControlSocket> {
  const path = join(dataDir, CONTROL_SOCKET)
  if (await answers(path)) throw new Error(`Another server answers on ${path}: it owns this data directory.`)
  try {
    unlinkSync(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const server: Server = createServer((conn) => serve(conn, deps.db, deps.audit))
  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(path, () => ok())
  })
  chmodSync(path, 0o600)
  return {
    path,
    close: () =>
      new Promise<void>((ok) => {
        // close() unlinks the socket file.
        server.close(() => ok())
      }),
  }
}

/**
 * Sends one request to the server owning `dataDir`. Null when no server listens there (no
 * socket, or a stale one), so the caller may open the database itself.
 */
export function askServer(dataDir: string, req: ControlRequest, timeoutMs = 60_000): Promise<ControlAnswer | null> {
  const path = join(dataDir, CONTROL_SOCKET)
  return new Promise((resolve, reject) => {
    const c = createConnection(path)
    let connected = false
    let text = ''
    // 0: no limit (a command whose work grows with the data).
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            c.destroy()
            reject(new Error(`The server on ${path} did not answer within ${Math.round(timeoutMs / 1000)} s.`))
          }, timeoutMs)
        : undefined
    c.setEncoding('utf8')
    c.once('connect', () => {
      connected = true
      c.write(`${JSON.stringify(req)}\n`)
    })
    c.on('data', (chunk: string) => (text += chunk))
    c.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      if (!connected && (err.code === 'ENOENT' || err.code === 'ECONNREFUSED')) resolve(null)
      else reject(new Error(`Could not talk to the server on ${path}: ${err.message}`))
    })
    c.once('close', () => {
      clearTimeout(timer)
      if (!connected) return
      try {
        resolve(JSON.parse(text) as ControlAnswer)
      } catch {
        reject(new Error(`The server on ${path} closed the connection without an answer.`))
      }
    })
  })
}

/** What withControlSocket needs of the rooms (rooms.ts's Rooms has them): the database, team access, and how to close them. */
export interface ControlledRooms {
  db: Db
  access: Pick<Access, 'audit' | 'flush'>
  close: () => Promise<void>
}

/**
 * The rooms of a server on PGlite, with the control socket opened in their data directory and
 * closed before them (a request under way finishes on the open database). Nothing is opened on
 * PostgreSQL: there the command line connects to the database itself, like any other client.
 */
export async function withControlSocket<R extends ControlledRooms>(
  rooms: R,
  dataDir: string | null,
  log: (line: string) => void,
): Promise<R> {
  if (dataDir === null || process.platform === 'win32') return rooms
  const audit: ControlAudit = async (actor, action, details) => {
    await rooms.access.audit({ name: actor, role: MOST_ROLE, via: 'local' }, 'command line', action, details)
    await rooms.access.flush()
  }
  let control: ControlSocket
  try {
    control = await openControlSocket(dataDir, { db: rooms.db, audit })
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('Another server answers')) {
      await rooms.close()
      throw err
    }
    // Not fatal: the server works; only `npm run users` cannot reach it (it will say so).
    log(`control socket: not opened in ${dataDir}: ${err instanceof Error ? err.message : String(err)}`)
    return rooms
  }
  return {
    ...rooms,
    close: async () => {
      await control.close()
      await rooms.close()
    },
  }
}
