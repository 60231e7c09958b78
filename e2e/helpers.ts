import { parse } from 'csv-parse/sync'
import { readFile } from 'node:fs/promises'
import { expect, test, type Download, type Page } from '@playwright/test'

/** Exports are read back with csv-parse, a parser the project did not write (RFC 4180, BOM, quoted CRLF). */
export function parseCsv(text: string): string[][] {
  return parse(text, { bom: true }) as string[][]
}

export async function downloadText(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string; download: Download }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()])
  const path = await download.path()
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8'), download }
}

/** Rows of a virtualised table as they are in the DOM, in order (spacer rows excluded). */
export async function rowTexts(page: Page, tableName: string | RegExp, cellIndex: number, selector = ''): Promise<string[]> {
  const rows = page.getByRole('table', { name: tableName }).locator('tbody tr[aria-rowindex]')
  return rows.evaluateAll(
    (trs, [i, sel]) =>
      trs.map((tr) => {
        const td = tr.children[i] as HTMLElement | undefined
        const el = sel ? td?.querySelector(sel) : td
        return (el?.textContent ?? '').trim()
      }),
    [cellIndex, selector] as const,
  )
}

export const NUMBERS = {
  big: { number: '18323232323', tid: 'PUHMGWS98301' },
  empty: { number: '14158074499', tid: 'CQNYFSJ07981' },
  one: { number: '15147901725', tid: 'BNQUSUX68269' },
  dozens: { number: '18552009444', tid: 'JQYBHYV97381' },
  hundreds: { number: '17202951888', tid: 'KVYPFWW99804' },
  thousands: { number: '8329632623', tid: 'VYWTNVQ77226' },
  million: { number: '13053851232', tid: 'YUFZUGT21996' },
  hostile: { number: '18004840451', tid: 'YJXGKLS07714' },
}

/**
 * How long the @scale tests wait for the million-message history to be indexed. It took 2.4
 * minutes on a 2-core machine, 5.2 with other work loading it; this bounds a stuck sync so a
 * failing `npm run test:scale` ends in minutes, not hours.
 */
export const MILLION_INDEX_MS = 10 * 60_000

export const historyUrl = (n: { number: string; tid: string }, extra = '') => `/numbers/${n.number}?tid=${n.tid}${extra ? `&${extra}` : ''}`

/** The app's own origin in the running test's e2e stack (for the index's JSON API from the test process). */
export const appUrl = () => test.info().project.use.baseURL ?? 'http://127.0.0.1:4010'

interface IndexNumber {
  number: string
  state: string
  indexed: number
  upstreamTotal: number | null
}

export async function indexStatus(): Promise<{ enabled: boolean; numbers: IndexNumber[] }> {
  // A pooled connection the server has closed after a long bulk load resets once: ask again.
  const res = await fetch(`${appUrl()}/api/index/status`).catch(() =>
    fetch(`${appUrl()}/api/index/status`, { headers: { connection: 'close' } }),
  )
  if (!res.ok) throw new Error(`index status: HTTP ${res.status}`)
  return (await res.json()) as { enabled: boolean; numbers: IndexNumber[] }
}

/**
 * Ask the index to sync a number and wait until it holds the whole history (bounded by
 * `timeoutMs`). The index persists for the whole run, so a number synced once stays synced.
 */
export async function indexNumber(n: { number: string; tid: string }, timeoutMs = 60_000): Promise<number> {
  let state: string | null = null
  const done = async () => {
    // A poll answered 503 `timeout` (the database busy building an index) is asked again next turn.
    const status = await indexStatus().catch((err: unknown) => {
      if (err instanceof Error && /HTTP 503/.test(err.message)) return null
      throw err
    })
    const s = status?.numbers.find((x) => x.number === n.number)
    state = s?.state ?? state
    return s && s.state === 'idle' && s.upstreamTotal !== null && s.indexed >= s.upstreamTotal ? s.indexed : null
  }
  const ask = async () => {
    const res = await fetch(`${appUrl()}/api/index/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number: n.number, tid: n.tid }),
    })
    if (!res.ok) throw new Error(`index sync: HTTP ${res.status} ${await res.text()}`)
  }
  const already = await done()
  if (already !== null) return already
  await ask()
  const until = Date.now() + timeoutMs
  let asked = Date.now()
  for (;;) {
    const got = await done()
    if (got !== null) return got
    if (Date.now() > until) throw new Error(`${n.number} not indexed within ${timeoutMs} ms (state ${state ?? 'unknown'})`)
    // A sync already under way when this asked may have met another spec's fault on the same
    // server and paused: ask again, as a person would press Index again.
    if ((state === 'paused' || state === 'error') && Date.now() - asked > 2_000) {
      await ask()
      asked = Date.now()
    }
    await new Promise((r) => setTimeout(r, 500))
  }
}

/**
 * The history ranges the page asked the upstream for, without the index's own sync requests
 * (1,000-record chunks and its 1-record look at the newest), which go through the same upstream.
 */
export const uiRanges = (requests: Array<{ path: string; fields: Record<string, string[]> }>) =>
  requests
    .filter((r) => r.path === '/api/smshistory')
    .map((r) => [Number(r.fields.history_start?.[0]), Number(r.fields.history_end?.[0])] as const)
    .filter(([s, e]) => e - s + 1 !== 1000 && !(s === 1 && e === 1))
    .map(([s, e]) => `${s}-${e}`)

/**
 * A proxy of its own for tests that need another configuration (INDEX=off, a smaller
 * HISTORY_PAGE_CAP): stack.ts's startProxy (the compiled server) on a fresh data directory of
 * its own, removed when it stops.
 */
export async function startOwnProxy(port: number, env: Record<string, string>) {
  const { rmSync } = await import('node:fs')
  const { freshDataDir, startProxy } = await import('./stack')
  const dataDir = await freshDataDir('switchboard-e2e-own-')
  const proc = await startProxy(port, { LOG_REQUESTS: '0', DATA_DIR: dataDir, ...env })
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await proc.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Picks a number in a number combobox as a person does: types its digits, then clicks the option. */
export async function pickNumber(page: Page, number: string, label = 'Number'): Promise<void> {
  const box = page.getByRole('combobox', { name: label })
  await box.fill(number.slice(1))
  await page.getByRole('listbox', { name: label }).getByRole('option').first().click()
  await expect(box).not.toHaveValue(number.slice(1))
}
