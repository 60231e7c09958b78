import { defineConfig } from '@playwright/test'
import { CHROMIUM_ARGS, findChromium } from './e2e/browser.ts'

const port = Number(process.env.E2E_PORT ?? 4010)
// Two e2e stacks (app + simulator + index each, on E2E_PORT/+1 and E2E_PORT+2/+3). Tests switch a
// stack's simulator faults on and share its index, so each stack runs one test at a time; the two
// stacks run side by side, each on its own share of the spec files (balanced by their run time).
// E2E_WORKERS=1 runs them one after the other.
const STACKS = [port, port + 2]
// A third stack whose simulator speaks the second upstream dialect (proxy/simulator/dialect.ts):
// the user journeys run against it as well, so none rests on the simulator's own words or shapes.
const PLAIN_STACK = port + 4
const PLAIN_FILES = ['**/journeys.spec.ts']
const FIRST_STACK_FILES = [
  '**/a11y.spec.ts',
  '**/reliability.spec.ts',
  '**/numbers.spec.ts',
  '**/dates.spec.ts',
  '**/print.spec.ts',
  '**/search.spec.ts',
  '**/charts.spec.ts',
  '**/theme.spec.ts',
  '**/index-progress.spec.ts',
  '**/code-load.spec.ts',
  '**/index-findings.spec.ts',
  '**/desk.spec.ts',
  '**/history-cap.spec.ts',
]
const executablePath = findChromium()
// Journeys over the million-message history (minutes of indexing) carry the @scale tag: they run
// in `npm run test:scale` (E2E_SCALE=1). The long journeys (@long: a whole account indexed by a
// server of their own, a desk-width twin of a phone journey, a walk of the million without the
// index) run there too, on the usual two stacks (E2E_LONG=1). Every other test runs in `npm test`.
const scale = process.env.E2E_SCALE === '1'
const long = !scale && process.env.E2E_LONG === '1'
// They all need the same million indexed: one stack indexes it once (from its fresh data
// directory) and every @scale test reads it, instead of two stacks indexing it side by side on
// two cores. The plain-dialect stack runs no @scale test.
const stacks = scale ? STACKS.slice(0, 1) : STACKS
const stackPorts = [...stacks, ...(scale || long ? [] : [PLAIN_STACK])]

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  ...(scale ? { grep: /@scale/ } : long ? { grep: /@long/ } : { grepInvert: /@scale|@long/ }),
  workers: Number(process.env.E2E_WORKERS ?? stacks.length),
  fullyParallel: false,
  retries: 0,
  timeout: 45_000,
  expect: { timeout: 8_000 },
  // The stacks start side by side (no `url` below, so Playwright does not wait for one before
  // starting the next); e2e/stacks-ready.ts waits for them all.
  globalSetup: './e2e/stacks-ready.ts',
  metadata: { stackUrls: stackPorts.map((p) => `http://127.0.0.1:${p}/`) },
  reporter: process.env.PW_JSON_OUTPUT ? [['list'], ['json', { outputFile: process.env.PW_JSON_OUTPUT }]] : [['list']],
  outputDir: '.test-results/playwright',
  projects: [
    ...stacks.map((appPort, i) => ({
      name: `stack-${i + 1}`,
      workers: 1,
      ...(scale ? {} : i === 0 ? { testMatch: FIRST_STACK_FILES } : { testIgnore: FIRST_STACK_FILES }),
      use: { baseURL: `http://127.0.0.1:${appPort}` },
      metadata: { simPort: appPort + 1 },
    })),
    ...(scale || long
      ? []
      : [
          {
            name: 'plain-upstream',
            workers: 1,
            testMatch: PLAIN_FILES,
            use: { baseURL: `http://127.0.0.1:${PLAIN_STACK}` },
            metadata: { simPort: PLAIN_STACK + 1 },
          },
        ]),
  ],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath, args: CHROMIUM_ARGS },
    acceptDownloads: true,
    // One browser context per worker, reset between tests (Playwright's reuseContext: cookies,
    // cache, local storage and IndexedDB cleared, extra pages closed, routes, init scripts and the
    // clock removed, viewport and emulation re-applied). Each test still meets the app as a new
    // visitor does, without a renderer and context made for it: about 0.5 CPU-s a test on this
    // 2-core machine. A test.use() of another locale or time zone gets a fresh context. Not reset:
    // permissions a test grants (history.spec's clipboard) and the tab's back/forward list.
    reuseContext: true,
    trace: 'off',
    screenshot: 'off',
  },
  webServer: stackPorts.map((appPort) => ({
    command: 'node --import tsx e2e/serve.ts',
    env: {
      E2E_PORT: String(appPort),
      E2E_SIM_PORT: String(appPort + 1),
      ...(appPort === PLAIN_STACK ? { E2E_SIM_DIALECT: 'plain' } : {}),
    },
    // Without a `url` Playwright starts a stack even when one already runs on its port (one a
    // developer left running with `node --import tsx e2e/serve.ts`): the new one fails to listen
    // and exits, and the running one serves.
    // SIGTERM, so the stack closes and removes its data directory (a SIGKILL, the default, left
    // one behind per stack per run: a gigabyte and more after the scale journeys).
    gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 10_000 },
    stdout: 'ignore',
    stderr: 'pipe',
  })),
})
