// A throwaway PostgreSQL cluster for tests and the bench: initdb into a fresh directory under
// the system temp dir, pg_ctl start on a free loopback port, and stop + remove afterwards.
//
//   node scripts/pg-cluster.mjs start        → prints {"url":…,"dir":…} and leaves it running
//   node scripts/pg-cluster.mjs stop DIR     → stops it and removes DIR
//
// Importable: `const c = await startCluster(); … await c.stop()`.
// PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user.
// Missing binaries fail loudly with what to install: tests never skip an engine silently.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export const INSTALL_HINT =
  'PostgreSQL server binaries (initdb, pg_ctl) were not found. Install them with: apt-get install -y postgresql (or set PG_BIN to the folder that holds them).'

/** The folder holding initdb and pg_ctl: PG_BIN, else the newest /usr/lib/postgresql/N/bin. */
export function findPgBin() {
  const candidates = []
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN)
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a))
    for (const v of versions) candidates.push(join(root, v, 'bin'))
  }
  for (const dir of candidates) if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir
  throw new Error(INSTALL_HINT)
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0

/** Runs a PostgreSQL binary as the postgres user when we are root (it refuses root). */
function runPg(bin, args) {
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]
  const r = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 })
  if (r.status !== 0)
    throw new Error(
      `${bin.split('/').pop()} failed (${r.status ?? r.signal}): ${(r.stderr || r.stdout || String(r.error ?? '')).trim().slice(0, 2000)}`,
    )
  return r.stdout
}

/**
 * Starts a cluster. Returns { url, socketUrl, dir, port, stop }. `stop()` is idempotent and removes the
 * directory. fsync is off: the data is thrown away with the directory.
 */
export async function startCluster(opts = {}) {
  const bin = findPgBin()
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-pg-'))
  const data = join(dir, 'data')
  let started = false
  const stop = () => {
    if (started) {
      try {
        runPg(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } catch {
        /* already down */
      }
      started = false
    }
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    if (isRoot()) execFileSync('chown', ['postgres:postgres', dir])
    // C.UTF-8 as in PGlite, so lower()/ILIKE fold Unicode the same way on both engines.
    runPg(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--no-instructions'])
    for (let attempt = 0; ; attempt++) {
      const port = opts.port ?? (await freePort())
      try {
        runPg(join(bin, 'pg_ctl'), [
          '-D',
          data,
          '-l',
          join(dir, 'server.log'),
          '-o',
          `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50`,
          '-w',
          '-t',
          '30',
          'start',
        ])
        started = true
        // socketUrl: the same server over its Unix socket (in `dir`), as a server on the same machine would connect.
        const socketUrl = `postgres://postgres@localhost:${port}/postgres?host=${encodeURIComponent(dir)}`
        return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, socketUrl, dir, port, stop }
      } catch (err) {
        // Another process may have taken the port between probe and start: try another.
        if (attempt >= 2 || opts.port) throw err
      }
    }
  } catch (err) {
    stop()
    throw err
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [cmd, arg] = process.argv.slice(2)
  try {
    if (cmd === 'start') {
      const c = await startCluster()
      console.log(JSON.stringify({ url: c.url, dir: c.dir, port: c.port }))
    } else if (cmd === 'stop' && arg) {
      const bin = findPgBin()
      if (existsSync(join(arg, 'data'))) {
        try {
          runPg(join(bin, 'pg_ctl'), ['-D', join(arg, 'data'), '-m', 'immediate', '-w', 'stop'])
        } catch {
          /* already down */
        }
      }
      rmSync(arg, { recursive: true, force: true })
    } else {
      console.error('usage: node scripts/pg-cluster.mjs start | stop DIR')
      process.exit(2)
    }
  } catch (err) {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  }
}
