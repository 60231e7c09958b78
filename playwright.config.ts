import { defineConfig } from '@playwright/test'
import { CHROMIUM_ARGS, findChromium } from './e2e/browser.ts'

const port = Number(process.env.E2E_PORT ?? 4010)
const executablePath = findChromium()
// Journeys over the million-message history (minutes of indexing) carry the @scale tag: they run
// in `npm run test:scale` (E2E_SCALE=1), and every other test runs in `npm test`.
const scale = process.env.E2E_SCALE === '1'

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  ...(scale ? { grep: /@scale/ } : { grepInvert: /@scale/ }),
  // One simulator is shared and tests switch its faults on: run them one at a time.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 45_000,
  expect: { timeout: 8_000 },
  reporter: process.env.PW_JSON_OUTPUT ? [['list'], ['json', { outputFile: process.env.PW_JSON_OUTPUT }]] : [['list']],
  outputDir: '.test-results/playwright',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    launchOptions: { executablePath, args: CHROMIUM_ARGS },
    acceptDownloads: true,
    trace: 'off',
    screenshot: 'off',
  },
  webServer: {
    command: 'node --import tsx e2e/serve.ts',
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
})
