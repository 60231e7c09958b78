import { parse } from 'csv-parse/sync'
import { readFile, stat } from 'node:fs/promises'
import type { CDPSession } from '@playwright/test'
import { END_MS, makeAccount, messageAt, DEMO_CREDENTIALS } from '../proxy/simulator/dataset'
import { FILE_NAME_MAX } from '../contract/file-name'
import { neutralise } from '../proxy/exports/csv'
import { expect, test } from './fixtures'
import { NUMBERS, startOwnProxy } from './helpers'
import { startSimulator } from './stack'
import { statusWord } from '../contract/message-csv'
import { upstreamStatusCode } from '../contract/upstream-values'

/*
 * A big index export as a person meets it: over a hundred thousand rows of the million-message
 * history go to the browser's own downloads as they arrive, the tray following the server's
 * progress, without the page holding the file. A server of its own (fresh data directory, syncs
 * unthrottled) indexes the newest part of the million history, newest first, and is then stopped
 * by a rejecting upstream, so the span exported is wholly indexed and nothing moves under the test.
 * Indexing the 108,000 messages first costs about 60 CPU-s and 30 s, so these run with the other
 * million-history journeys in `npm run test:scale` (@scale), which CI runs after `npm test`.
 */
const SIM_PORT = 4461
const APP_PORT = 4460
const MILLION = NUMBERS.million
const TOTAL = 1_000_000
const STEP_MS = 47_000
const FROM = '2026-09-24'
/** Messages from the start of FROM (UTC) to the newest, by the simulator's rule: one every 47 s back from END_MS. */
const EXPECTED = Math.floor((END_MS - Date.parse(`${FROM}T00:00:00Z`)) / STEP_MS) + 1
/** Indexed past the span by a margin, so the span is whole (the walk goes newest first). */
const ENOUGH = EXPECTED + 3_000

test.use({ timezoneId: 'UTC' })
test.describe.configure({ mode: 'serial' })

let proxy: Awaited<ReturnType<typeof startOwnProxy>>
let sim: Awaited<ReturnType<typeof startSimulator>>

async function status(base: string) {
  const r = await fetch(`${base}/api/index/status?number=${MILLION.number}`).catch(() => null)
  if (!r?.ok) return null
  return ((await r.json()) as { numbers: Array<{ state: string; indexed: number }> }).numbers[0] ?? null
}

test.beforeAll(async () => {
  test.setTimeout(300_000)
  sim = await startSimulator(SIM_PORT, { SIMULATOR_CONTROL: '1' })
  proxy = await startOwnProxy(APP_PORT, {
    API_BASE_URL: `http://127.0.0.1:${SIM_PORT}`,
    API_SYS_ID: DEMO_CREDENTIALS.sysId,
    API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
    SYNC_RATE: '0',
    EXPORTS_PER_USER: '1',
  }).catch(async (err: unknown) => {
    await sim.stop()
    throw err
  })
  const sync = await fetch(`${proxy.url}/api/index/sync`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(MILLION),
  })
  expect(sync.status).toBe(202)
  await expect.poll(async () => (await status(proxy.url))?.indexed ?? 0, { timeout: 240_000, intervals: [1_000] }).toBeGreaterThan(ENOUGH)
  // The upstream refuses the rest: the sync pauses with what it has.
  const fault = await fetch(`http://127.0.0.1:${SIM_PORT}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ op: 'smshistory', number: MILLION.number, kind: 'reject', message: 'Held for the export test' }),
  })
  expect(fault.ok).toBe(true)
  await expect.poll(async () => (await status(proxy.url))?.state, { timeout: 120_000, intervals: [1_000] }).toMatch(/^(paused|error)$/)
})

test.afterAll(async () => {
  await proxy?.stop()
  await sim?.stop()
})

/** The page's JS heap in use, after a full collection. */
async function heapUsed(cdp: CDPSession) {
  await cdp.send('HeapProfiler.collectGarbage')
  return (await cdp.send('Runtime.getHeapUsage')).usedSize
}

test(
  `an export of ${EXPECTED.toLocaleString('en-US')} rows goes to the downloads as it arrives: the tray follows it, the page's heap does not hold it, every row is the simulator's`,
  { tag: '@scale' },
  async ({ page }) => {
    test.setTimeout(180_000)
    await page.goto(`${proxy.url}/search?numbers=${MILLION.number}&from=${FROM}`)
    const count = EXPECTED.toLocaleString('en-US')
    await expect(page.getByRole('status').filter({ hasText: `${count} matches` })).toBeVisible({ timeout: 30_000 })
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('HeapProfiler.enable')
    const before = await heapUsed(cdp)
    let peak = before
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, (await cdp.send('Runtime.getHeapUsage')).usedSize)
        await new Promise((r) => setTimeout(r, 100))
      }
    })()
    const started = Date.now()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: `Export all ${count} matches as CSV` }).click(),
    ])
    const tray = page.getByRole('region', { name: 'Exports' })
    const path = await download.path()
    expect(await download.failure()).toBeNull()
    await expect(tray).toContainText(new RegExp(`Saved ${count} rows \\([\\d.]+ MB\\) to your browser's downloads as switchboard-`), {
      timeout: 30_000,
    })
    const seconds = (Date.now() - started) / 1000
    sampling = false
    await sampler
    const after = await heapUsed(cdp)
    const bytes = (await stat(path)).size
    // The page never held the file: its heap grew by far less than the file at any moment.
    console.log(
      `export-download: ${EXPECTED} rows, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s; JS heap ${(before / 1e6).toFixed(1)} MB before, peak ${(peak / 1e6).toFixed(1)} MB, ${(after / 1e6).toFixed(1)} MB after`,
    )
    expect(bytes).toBeGreaterThan(20_000_000)
    expect(peak - before).toBeLessThan(bytes / 8)
    expect(after - before).toBeLessThan(bytes / 20)
    expect(download.suggestedFilename()).toMatch(new RegExp(`^switchboard-search-${MILLION.number}-.*${EXPECTED}-rows.*\\.csv$`))
    expect(download.suggestedFilename().length).toBeLessThanOrEqual(FILE_NAME_MAX)

    // Every row is the simulator's message of that ordinal, and the ordinals are the span's.
    const rows = parse(await readFile(path), { bom: true, columns: true }) as Array<Record<string, string>>
    expect(rows).toHaveLength(EXPECTED)
    const profile = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60).byNumber.get(MILLION.number)!
    const seen = new Set<number>()
    const wrong: string[] = []
    for (const row of rows) {
      const seq = Number(row.ordinal)
      seen.add(seq)
      const m = messageAt(profile, seq, TOTAL, `http://127.0.0.1:${SIM_PORT}`, 0)
      const want = {
        number: MILLION.number,
        position: String(TOTAL - seq + 1),
        date_utc: new Date(END_MS - (TOTAL - seq) * STEP_MS).toISOString().replace('.000Z', 'Z'),
        party: neutralise(m.phone),
        direction: m.direction,
        body: neutralise(m.body),
        status: statusWord(upstreamStatusCode(m.status)),
        status_raw: neutralise(m.status),
        system_id: String(m.system_id),
        message_id: m.message_id,
      }
      for (const [k, v] of Object.entries(want)) if (row[k] !== v && wrong.length < 5) wrong.push(`ordinal ${seq} ${k}: ${row[k]} ≠ ${v}`)
    }
    expect(wrong).toEqual([])
    expect(seen.size).toBe(EXPECTED)
    expect(Math.min(...seen)).toBe(TOTAL - EXPECTED + 1)
    expect(Math.max(...seen)).toBe(TOTAL)
  },
)

test(
  'Cancel stops the server and the download ends unfinished; a second export waits in line, then runs; the results stay on screen',
  { tag: '@scale' },
  async ({ page }) => {
    test.setTimeout(120_000)
    await page.goto(`${proxy.url}/search?numbers=${MILLION.number}&from=${FROM}`)
    const count = EXPECTED.toLocaleString('en-US')
    await expect(page.getByRole('status').filter({ hasText: `${count} matches` })).toBeVisible({ timeout: 30_000 })
    const results = page.getByRole('table').first()
    await expect(results).toBeVisible()
    const shown = await results.locator('tbody tr').first().textContent()
    // A slow link (1 MB/s down) keeps the export running long enough to cancel.
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 1_000_000, uploadThroughput: -1 })
    const button = page.getByRole('button', { name: `Export all ${count} matches as CSV` })
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
    const tray = page.getByRole('region', { name: 'Exports' })
    const first = tray.getByRole('listitem').first()
    await expect(first).toContainText(new RegExp(`[1-9][\\d,]* of ${count} rows written`), { timeout: 20_000 })

    // A second export while the first runs: this server lets one person run one (EXPORTS_PER_USER=1),
    // so the second waits in line on the server, its download's request held there.
    await button.click()
    const second = tray.getByRole('listitem').nth(1)
    await expect(second).toContainText(
      /Queued — 1st in line, starts (in (a few seconds|about \d+ (s|min))|when an export ahead of it ends)\./,
      {
        timeout: 20_000,
      },
    )
    await tray.screenshot({ path: '/tmp/export-queued-tray.png' })

    // Cancelled while it waits, the server takes it out of line (its record ends cancelled by you,
    // no row written) and logs the cancel. A person may have as many waiting as running: one.
    await second.getByRole('button', { name: 'Cancel export' }).click()
    await expect(second.getByRole('status')).toHaveText(/^Cancelled after 0 rows\./, { timeout: 20_000 })
    await expect
      .poll(async () => {
        const log = (await (await fetch(`${proxy.url}/api/auth/access-log?action=search.export.cancel&limit=5`)).json()) as {
          entries: unknown[]
        }
        return log.entries.length
      })
      .toBe(1)
    await second.getByRole('button', { name: 'Dismiss' }).click()
    await expect(tray.getByRole('listitem')).toHaveCount(1)
    // Another takes its place in line.
    await button.click()
    await expect(second).toContainText(/Queued — 1st in line/, { timeout: 20_000 })

    const secondDownload = page.waitForEvent('download')
    await first.getByRole('button', { name: 'Cancel export' }).click()
    await expect(first.getByRole('status')).toContainText(
      /^Cancelled after [\d,]+ rows\. The download stopped unfinished: no complete file was saved\.$/,
      { timeout: 20_000 },
    )
    const rows = Number(/after ([\d,]+) rows/.exec((await first.getByRole('status').textContent()) ?? '')![1]!.replace(/,/g, ''))
    expect(rows).toBeLessThan(EXPECTED)
    // The browser's copy failed rather than looking whole.
    expect(await download.failure()).not.toBeNull()
    // The first's slot went to the second: it starts by itself and shows its progress.
    await expect(second).toContainText(new RegExp(`[1-9][\\d,]* of ${count} rows written`), { timeout: 20_000 })
    await secondDownload
    await second.getByRole('button', { name: 'Cancel export' }).click()
    await expect(second.getByRole('status')).toContainText(/^Cancelled after [\d,]+ rows\./, { timeout: 20_000 })
    // Nothing on screen was lost to the downloads.
    await expect(page).toHaveURL(new RegExp(`/search\\?numbers=${MILLION.number}`))
    await expect(results.locator('tbody tr').first()).toHaveText(shown ?? '')
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
    await page.screenshot({ path: '/tmp/export-download-1400.png' })
    await page.setViewportSize({ width: 390, height: 844 })
    await page.screenshot({ path: '/tmp/export-download-390.png' })
  },
)
