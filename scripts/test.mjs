// `npm test`: typecheck, lint, unit tests, build, browser tests; then how long each phase took
// and one plain summary line `N passed, N failed` counting every test and check. On a 2-core
// machine the steps run side by side so that neither core idles: typecheck, lint, the format
// check and the build together, then the unit tests (two vitest workers) beside the rest of the
// lint and the compiled server's smoke test, then the browser tests.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { TSC } from './build.mjs'
import { ensureBrowser, ensurePdfText, ensurePostgres } from './ensure-tools.mjs'
import { SERVER_NODE_FLAGS } from './server-flags.mjs'

const tAll = performance.now()
const root = process.cwd()
const out = join(root, '.test-results')
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }

// What the suites need besides node_modules, found or got before anything runs, and said.
try {
  const browser = ensureBrowser()
  console.log(`Browser for the e2e tests: ${browser.how}`)
  if (!browser.how.startsWith("Playwright's own")) env.CHROMIUM_PATH = browser.path
  const pg = ensurePostgres()
  console.log(`PostgreSQL for the engine tests: ${pg.how}`)
  env.PG_BIN = pg.bin
  console.log(`PDF text for the print tests: ${ensurePdfText().how}`)
} catch (err) {
  console.error(`\n${err instanceof Error ? err.message : err}`)
  console.log('\n0 passed, 1 failed')
  process.exit(1)
}
const bin = (name) => join(root, 'node_modules', '.bin', name)
let passed = 0
let failed = 0
const failures = []

const phases = []
const seconds = (t0) => Math.round((performance.now() - t0) / 100) / 10

function run(label, cmd, args, extraEnv = {}) {
  console.log(`\n── ${label} ──`)
  const t0 = performance.now()
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...env, ...extraEnv } })
  phases.push(`${label}: ${seconds(t0)} s`)
  return r.status === 0
}

/** Like run, beside others: the output is held and printed whole when the step ends, so steps do not interleave. */
function runBeside(label, cmd, args) {
  const t0 = performance.now()
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let text = ''
    child.stdout.on('data', (d) => (text += d))
    child.stderr.on('data', (d) => (text += d))
    const done = (ok, why = '') => {
      phases.push(`${label}: ${seconds(t0)} s (beside others)`)
      console.log(`\n── ${label} ──\n${text}${why}`)
      resolve(ok)
    }
    child.on('error', (err) => done(false, `could not start: ${err.message}\n`))
    child.on('close', (code) => done(code === 0))
  })
}
function check(label, ok) {
  if (ok) passed += 1
  else {
    failed += 1
    failures.push(label)
  }
}

// The build writes dist/ and build/, which neither tsc --noEmit nor ESLint nor Prettier reads.
// Typed ESLint runs on one thread for about 100 s, longer than the other three together: the unit
// tests start once those three are done, beside the rest of the lint, so the second core does not idle.
const tStatic = performance.now()
const lint = runBeside('lint', bin('eslint'), ['.', '--max-warnings=0'])
const [typeOk, formatOk, buildOk] = await Promise.all([
  runBeside('typecheck', process.execPath, [TSC, '-p', 'tsconfig.json', '--noEmit']),
  runBeside('format (prettier --check)', bin('prettier'), ['--check', '.', '--log-level', 'warn']),
  runBeside('build (SPA and server)', process.execPath, [join(root, 'scripts', 'build.mjs')]),
])
phases.push(`typecheck + format + build, together: ${seconds(tStatic)} s`)
check('typecheck', typeOk)
check('format', formatOk)
check('build', buildOk)

// The unit tests do not read dist/ or build/; the smoke test of the compiled server runs beside them.
const vitestJson = join(out, 'vitest.json')
const tUnit = performance.now()
const [unitOk, lintOk] = await Promise.all([
  runBeside('unit tests (vitest)', bin('vitest'), [
    'run',
    '--tags-filter=!long',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${vitestJson}`,
  ]),
  lint,
  (async () => {
    if (!buildOk) return
    const t0 = performance.now()
    check('compiled server starts and serves the app', await smokeCompiledServer())
    phases.push(`compiled server smoke test: ${seconds(t0)} s (beside the unit tests)`)
  })(),
])
phases.push(`unit tests + the rest of the lint + smoke test, together: ${seconds(tUnit)} s`)
check('lint', lintOk)
if (existsSync(vitestJson)) {
  const r = JSON.parse(readFileSync(vitestJson, 'utf8'))
  passed += r.numPassedTests
  failed += r.numFailedTests
  if (r.numFailedTests) failures.push(`${r.numFailedTests} unit test(s)`)
  if (!unitOk && r.numFailedTests === 0) check('unit test run', false)
} else check('unit test run', unitOk)

/** The server as it ships (plain node on build/server) answers the app shell, then stops. */
async function smokeCompiledServer() {
  console.log('\n── compiled server smoke test ──')
  const { spawn } = await import('node:child_process')
  const dataDir = join(out, 'smoke-data')
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, join(root, 'build', 'server', 'proxy', 'server.js')], {
    env: { ...env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_REQUESTS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  try {
    const url = await new Promise((resolve, reject) => {
      // Minutes, not seconds: a first start runs initdb, here beside the lint and two vitest workers.
      const t = setTimeout(() => reject(new Error('no start banner within 120 s')), 120_000)
      child.stdout.on('data', () => {
        const m = /Switchboard on (http:\/\/\S+)/.exec(output)
        if (m) {
          clearTimeout(t)
          resolve(m[1])
        }
      })
      child.on('exit', (code) => reject(new Error(`exited ${code}`)))
    })
    const res = await fetch(url)
    const html = await res.text()
    const ok = res.status === 200 && html.includes('<div id="root">')
    console.log(ok ? `compiled server answered the app shell on ${url}` : `unexpected answer: HTTP ${res.status}`)
    return ok
  } catch (err) {
    console.log(`compiled server failed: ${err.message}\n${output}`)
    return false
  } finally {
    child.kill('SIGTERM')
  }
}

if (buildOk) {
  const pwJson = join(out, 'playwright.json')
  const e2eOk = run('browser tests (playwright)', bin('playwright'), ['test'], { PW_JSON_OUTPUT: pwJson })
  if (existsSync(pwJson)) {
    const r = JSON.parse(readFileSync(pwJson, 'utf8'))
    const s = r.stats ?? {}
    passed += s.expected ?? 0
    const bad = (s.unexpected ?? 0) + (s.flaky ?? 0)
    failed += bad
    if (bad) failures.push(`${bad} browser test(s)`)
    if (!e2eOk && bad === 0) check('browser test run', false)
  } else check('browser test run', e2eOk)
}

console.log(`\nPhases:\n  ${phases.join('\n  ')}\n  all: ${seconds(tAll)} s`)
if (failures.length) console.log(`\nFailed: ${failures.join(', ')}`)
console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
