import { existsSync } from 'node:fs'
import { playwrightOwnChromium, systemChromium } from '../scripts/ensure-tools.mjs'

/**
 * Find a Chromium: CHROMIUM_PATH when set, Playwright's own download when present, else the
 * system's, its headless shell first (scripts/ensure-tools.mjs). Never hard-code one path: CI
 * machines get Debian's packages, developers may have Playwright's.
 */
export function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH && existsSync(process.env.CHROMIUM_PATH)) return process.env.CHROMIUM_PATH
  if (playwrightOwnChromium()) return undefined // Playwright's own: no override needed
  const sys = systemChromium()
  if (sys) return sys
  throw new Error(
    'No Chromium found. Install one: `apt-get install -y chromium-headless-shell` (Debian/Ubuntu) or `npx playwright install chromium`.',
  )
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
]
