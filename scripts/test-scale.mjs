// `npm run test:scale`: the browser journeys over the million-message history (tagged @scale in
// e2e/), which index the whole million first and take minutes on a small machine, so `npm test`
// leaves them out. Builds the SPA and the server, runs them, then prints `N passed, N failed`.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ensureBrowser, ensurePostgres } from './ensure-tools.mjs'

const root = process.cwd()
const out = join(root, '.test-results', 'scale')
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', E2E_SCALE: '1' }

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

console.log('\n── browser tests at scale (playwright, @scale) ──')
const pwJson = join(out, 'playwright.json')
const run = spawnSync(join(root, 'node_modules', '.bin', 'playwright'), ['test'], {
  stdio: 'inherit',
  env: { ...env, PW_JSON_OUTPUT: pwJson },
})
let passed = 0
let failed = 0
if (existsSync(pwJson)) {
  const s = JSON.parse(readFileSync(pwJson, 'utf8')).stats ?? {}
  passed = s.expected ?? 0
  failed = (s.unexpected ?? 0) + (s.flaky ?? 0)
}
// A run that failed without a failed test (the stack did not start, no test found) still fails.
if (run.status !== 0 && failed === 0) failed = 1
if (passed === 0 && failed === 0) failed = 1

console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed ? 1 : 0)
