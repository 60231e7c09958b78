// What `npm test` needs besides node_modules: a Chromium for the browser tests and the
// PostgreSQL server binaries for the index engine tests, and pdftotext for the print tests. Each is found if present, else got:
//   browser:    Playwright's own download → the system's Chromium headless shell → Debian's
//               `chromium-headless-shell` through apt-get (as root) → the system's full Chromium →
//               Debian's `chromium` through apt-get → stop with the command to run
//   PostgreSQL: the binaries in /usr/lib/postgresql/*/bin or on PATH → Debian's `postgresql` through apt-get (as root) → stop
// It says which one it used. Importable (ensureBrowser, ensurePostgres) and runnable.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0

function which(name) {
  try {
    return execFileSync('which', [name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined
  } catch {
    return undefined
  }
}

export function playwrightOwnChromium() {
  try {
    const { chromium } = createRequire(import.meta.url)('playwright-core')
    const p = chromium.executablePath()
    return p && existsSync(p) ? p : undefined
  } catch {
    return undefined
  }
}

/**
 * Chromium's headless shell (Debian's `chromium-headless-shell`) is the same engine without the
 * desktop browser around it: the whole a11y.spec took 135 CPU-s with it against 157 with
 * `chromium` (83 against 97 s) on this 2-core machine, every test passing either way.
 */
const HEADLESS_SHELLS = ['chromium-headless-shell']
const FULL_CHROMIUMS = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']

/** CHROMIUM_PATH when set, else the system's headless shell, else (unless `shellOnly`) its full Chromium. */
export function systemChromium({ shellOnly = false } = {}) {
  if (process.env.CHROMIUM_PATH && existsSync(process.env.CHROMIUM_PATH)) return process.env.CHROMIUM_PATH
  for (const name of shellOnly ? HEADLESS_SHELLS : [...HEADLESS_SHELLS, ...FULL_CHROMIUMS]) {
    const p = which(name)
    if (p) return p
  }
  return undefined
}

function aptInstall(pkg) {
  if (!isRoot || !which('apt-get')) return false
  console.log(`Installing Debian's ${pkg} (apt-get)…`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env, timeout: 120_000 })
  // A policy-rc.d that says "no" keeps the package from starting the system's own cluster
  // (and any other service): the tests start a throwaway cluster of their own.
  const policy = '/usr/sbin/policy-rc.d'
  const ownPolicy = !existsSync(policy)
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 })
  try {
    const r = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env,
      timeout: 300_000,
    })
    return r.status === 0
  } finally {
    if (ownPolicy) rmSync(policy, { force: true })
  }
}

export function ensureBrowser() {
  const own = playwrightOwnChromium()
  if (own) return { path: own, how: "Playwright's own Chromium" }
  const shell = systemChromium({ shellOnly: true })
  if (shell) return { path: shell, how: `the system's Chromium (${shell})` }
  // A machine with the full browser gets its headless shell beside it: the browser tests cost less.
  if (aptInstall('chromium-headless-shell')) {
    const p = systemChromium({ shellOnly: true })
    if (p) return { path: p, how: `Debian's chromium-headless-shell (just installed, ${p})` }
  }
  const sys = systemChromium()
  if (sys) return { path: sys, how: `the system's Chromium (${sys})` }
  console.log('No Chromium found; trying `npx playwright install chromium`…')
  const pw = spawnSync(process.execPath, [join(process.cwd(), 'node_modules', 'playwright-core', 'cli.js'), 'install', 'chromium'], {
    stdio: 'inherit',
    timeout: 300_000,
  })
  if (pw.status === 0 && playwrightOwnChromium())
    return { path: playwrightOwnChromium(), how: "Playwright's own Chromium (just downloaded)" }
  if (aptInstall('chromium')) {
    const p = systemChromium()
    if (p) return { path: p, how: `Debian's chromium (just installed, ${p})` }
  }
  throw new Error(
    'No Chromium for the browser tests, and none could be installed. Run one of:\n  npx playwright install chromium\n  sudo apt-get install -y chromium-headless-shell\nor set CHROMIUM_PATH to a Chromium binary.',
  )
}

export function findPostgresBin() {
  if (process.env.PG_BIN && existsSync(join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN
  const base = '/usr/lib/postgresql'
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0]) return join(base, versions[0], 'bin')
  }
  const initdb = which('initdb')
  return initdb ? initdb.slice(0, -'/initdb'.length) : undefined
}

export function ensurePostgres() {
  const found = findPostgresBin()
  if (found) return { bin: found, how: `PostgreSQL binaries in ${found}` }
  if (aptInstall('postgresql')) {
    const bin = findPostgresBin()
    if (bin) return { bin, how: `Debian's postgresql (just installed, ${bin})` }
  }
  throw new Error(
    'No PostgreSQL server binaries for the index engine tests (initdb, pg_ctl). Run:\n  sudo apt-get install -y postgresql\nor set PG_BIN to the folder holding initdb and pg_ctl.',
  )
}

/** The print tests read the text of a PDF with poppler's pdftotext. */
export function ensurePdfText() {
  const found = which('pdftotext')
  if (found) return { path: found, how: `pdftotext (${found})` }
  if (aptInstall('poppler-utils') && which('pdftotext')) return { path: which('pdftotext'), how: "Debian's poppler-utils (just installed)" }
  throw new Error('No pdftotext for the print tests. Run:\n  sudo apt-get install -y poppler-utils')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const b = ensureBrowser()
    console.log(`Browser: ${b.how}`)
    const p = ensurePostgres()
    console.log(`PostgreSQL: ${p.how}`)
    console.log(`PDF text: ${ensurePdfText().how}`)
  } catch (err) {
    console.error(err instanceof Error ? err.message : err)
    process.exit(1)
  }
}
