import { existsSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'

/**
 * Find a Chromium: Playwright's own download when present, else the system's. Never hard-code
 * one path: CI machines get Debian's /usr/bin/chromium, developers may have Playwright's.
 */
export function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH && existsSync(process.env.CHROMIUM_PATH)) return process.env.CHROMIUM_PATH
  try {
    // playwright-core knows where its own browser would be.
    const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core')
    const own = chromium.executablePath()
    if (own && existsSync(own)) return undefined // Playwright's own: no override needed
  } catch {
    /* not installed or no browser downloaded */
  }
  for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
    try {
      const p = execFileSync('which', [name], { encoding: 'utf8' }).trim()
      if (p) return p
    } catch {
      /* try the next */
    }
  }
  throw new Error('No Chromium found. Install one: `apt-get install -y chromium` (Debian/Ubuntu) or `npx playwright install chromium`.')
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
