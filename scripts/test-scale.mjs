// `npm run test:scale`: what `npm test` leaves out to keep within its time. The unit tests tagged
// long (crash sweeps, soaks, large streams), the browser journeys tagged @long (a whole account
// indexed by a server of their own, a desk-width twin of a phone journey), and the journeys over
// the million-message history (@scale), which index the whole million first and take minutes on a
// small machine. Builds the SPA and the server, runs the three, then prints `N passed, N failed`.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBrowser, ensurePostgres } from './ensure-tools.mjs'

const root = process.cwd()
const out = join(root, '.test-results', 'scale')
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }

try {
  const browser = ensureBrowser()
  console.log(`Browser for the e2e tests: ${browser.how}`)
  if (!browser.how.startsWith("Playwright's own")) env.CHROMIUM_PATH = browser.path
  env.PG_BIN = ensurePostgres().bin
} catch (err) {
  console.error(`\n${err instanceof Error ? err.message : err}`)
  console.log('\n0 passed, 1 failed')
  process.exit(1)
}

console.log('\n── build (SPA and server) ──')
const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit', env })
if (built.status !== 0) {
  console.log('\n0 passed, 1 failed')
  process.exit(1)
}

let passed = 0
let failed = 0
const phases = []
/** One step; a step that failed without a failed test (a stack did not start, no test found) still fails. */
function step(label, cmd, args, extraEnv, counts) {
  console.log(`\n── ${label} ──`)
  const t0 = performance.now()
  const run = spawnSync(cmd, args, { stdio: 'inherit', env: { ...env, ...extraEnv } })
  phases.push(`${label}: ${Math.round((performance.now() - t0) / 100) / 10} s`)
  const [ok, bad] = counts()
  passed += ok
  failed += bad
  if ((run.status !== 0 && bad === 0) || ok + bad === 0) failed += 1
}
const readJson = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null)

const vitestJson = join(out, 'vitest.json')
step(
  'unit tests tagged long (vitest)',
  join(root, 'node_modules', '.bin', 'vitest'),
  ['run', '--tags-filter=long', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`],
  {},
  () => {
    const r = readJson(vitestJson)
    return r ? [r.numPassedTests, r.numFailedTests] : [0, 0]
  },
)
for (const [label, tag, file] of [
  ['browser tests tagged @long (playwright)', { E2E_LONG: '1' }, 'playwright-long.json'],
  ['browser tests at scale (playwright, @scale)', { E2E_SCALE: '1' }, 'playwright.json'],
]) {
  const pwJson = join(out, file)
  step(label, join(root, 'node_modules', '.bin', 'playwright'), ['test'], { ...tag, PW_JSON_OUTPUT: pwJson }, () => {
    const s = readJson(pwJson)?.stats ?? {}
    return [s.expected ?? 0, (s.unexpected ?? 0) + (s.flaky ?? 0)]
  })
}
console.log(`\nPhases:\n  ${phases.join('\n  ')}`)

console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
