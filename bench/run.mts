/**
 * `npm run bench`: the production build in headless Chromium on the simulator, and the proxy
 * under load, each UI figure beside a baseline measured in the same run. Runs are interleaved
 * (app, baseline, app, baseline…), medians quoted with min–max. Prints a table, writes
 * .bench/ui.json (bench/main.mts summarises it), exits 1 when a budget is missed or a group
 * fails. Not part of `npm test`.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { chromium, type Browser, type Page } from 'playwright-core'
import { Pool } from 'undici'
import { CHROMIUM_ARGS, findChromium } from '../e2e/browser.ts'
import { startProxy, startSimulator, type Proc } from '../e2e/stack.ts'
import { DEMO_CREDENTIALS, LARGE_CREDENTIALS } from '../proxy/simulator/dataset.ts'
import { toCsv } from '../src/lib/csv.ts'
import { indexEverything, pagesGroup } from './pages.mts'
import { atMost, checked, figure, mean, median, missed, passes, percentile, under, writeGroup, type Figure } from './stats.ts'

const ROOT = process.cwd()
const RUNS = Number(process.env.BENCH_RUNS ?? 11)
/** BENCH_ONLY=numbers,numbers-throttled,history,layout,pages,proxy,simulator,export limits a run to some groups (the bundle is always measured). */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'numbers,numbers-throttled,history,layout,pages,proxy,simulator,export').split(','))
/** Page loads per page and preset for the layout-shift and LCP figures (throttled loads are slow). */
const LAYOUT_RUNS = Number(process.env.BENCH_LAYOUT_RUNS ?? 3)
const SIM_PORT = 4111
const PROXY_PORT = 4110
/**
 * The demo account (60 numbers, one with 1,000,000 messages), as `npm start` shows it: what the
 * issue's Lighthouse figures were taken on. Its message index is filled completely before the
 * layout and pages groups measure anything (the search, thread and charts pages read it).
 */
const DEMO_PROXY_PORT = 4112
const BIG = { number: '18323232323', tid: 'PUHMGWS98301' }
const MILLION = { number: '13053851232', tid: 'YUFZUGT21996' }
/** Pause after closing a page, so its renderer's teardown is not inside the next page's measurement. */
const SETTLE_MS = 1000
/** Loads of each page a run for the numbers page's first rows (the app's last one goes on to the interactions). */
const FIRST_ROWS_LOADS = 3
/** One frame at 60 Hz, headless Chromium's frame rate here (the history scroll checks it). */
const FRAME_MS = 1000 / 60
const figures: Figure[] = []
const log = (s: string) => process.stderr.write(`${s}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const KiB = 1024

// ── bundle ──────────────────────────────────────────────────────────────────────────────
function bundle() {
  log('building the production bundle…')
  execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], { stdio: 'inherit' })
  // The server the pages are measured on, compiled now from this checkout (as the index group's):
  // the figures are never a stale build's, and a checkout changed since its last build still runs.
  log('building the server…')
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), 'server'], { stdio: 'inherit' })
  const html = readFileSync(join(ROOT, 'dist/index.html'), 'utf8')
  const js = [
    ...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g),
  ].map((m) => m[1]!)
  const css = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => m[1]!)
  const gz = (files: string[]) => files.reduce((n, f) => n + gzipSync(readFileSync(join(ROOT, 'dist', f)), { level: 9 }).length, 0) / KiB
  figures.push(figure('bundle', 'initial JS, gzip', 'KiB', [gz(js)], { budget: atMost(150), note: js.join(' ') }))
  figures.push(figure('bundle', 'initial CSS, gzip', 'KiB', [gz(css)], { budget: atMost(25) }))
}

// ── browser measurements ────────────────────────────────────────────────────────────────
/**
 * Installed before any page script: data arrival, first rows painted (the first animation frame
 * after the rows enter the DOM: the frame that paints them), and Event Timing entries. The same
 * code measures the app and the baseline page.
 *
 * Data arrival is `anchor` of the data's Resource Timing entry, or the latest of the resources
 * the rows need (the history page requests its first records before its own code has arrived, so
 * for it "data arrival" is the later of the records and the page's chunk).
 * - `responseEnd` (the history page): the whole answer is in.
 * - `responseStart` (the numbers page, both pages): its first byte. The app reads the listing as it
 *   arrives and draws its first rows from its start (readText in src/api/client.ts). Its last byte
 *   is then no fixed point: the answer stops coming while the page is busy with those rows (the
 *   data pipe fills), so the app's responseEnd moved 20–70 ms later and its rows were painted
 *   before it. The first byte is the same moment on both pages. The time from the last byte is
 *   kept (`fromEnd`) and reported.
 */
const INIT = (rowSelector: string, resources: string[], anchor: 'responseStart' | 'responseEnd') => `
  let finish;
  window.__bench = { dataAt: null, endAt: null, rowsAt: null, pending: false, events: [], done: new Promise((r) => (finish = r)) };
  const check = () => { const b = window.__bench; if (b.dataAt !== null && b.rowsAt !== null) finish({ ms: b.rowsAt - b.dataAt, fromEnd: b.rowsAt - b.endAt }); };
  const wanted = ${JSON.stringify(resources)};
  const starts = new Map();
  const ends = new Map();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) for (const w of wanted) if (e.name.includes(w) && !ends.has(w)) { starts.set(w, e.${anchor}); ends.set(w, e.responseEnd) }
    const b = window.__bench;
    if (b.dataAt === null && ends.size === wanted.length) { b.dataAt = Math.max(...starts.values()); b.endAt = Math.max(...ends.values()); check(); }
  }).observe({ type: 'resource', buffered: true });
  new MutationObserver(() => {
    const b = window.__bench;
    if (b.pending || !document.querySelector(${JSON.stringify(rowSelector)})) return;
    b.pending = true;
    requestAnimationFrame(() => { b.rowsAt = performance.now(); check(); });
  }).observe(document, { childList: true, subtree: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__bench.events.push({ name: e.name, duration: e.duration, id: e.interactionId || 0 });
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
`

type Bench = {
  dataAt: number | null
  endAt: number | null
  rowsAt: number | null
  events: Array<{ name: string; duration: number; id: number }>
}
const readBench = (page: Page) => page.evaluate(() => (window as unknown as { __bench: Bench }).__bench)

async function firstRows(
  browser: Browser,
  url: string,
  rowSelector: string,
  resource: string | string[],
  { cpuThrottle = 1, anchor = 'responseEnd' }: { cpuThrottle?: number; anchor?: 'responseStart' | 'responseEnd' } = {},
) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
  await page.addInitScript(INIT(rowSelector, typeof resource === 'string' ? [resource] : resource, anchor))
  const cdp = await page.context().newCDPSession(page)
  if (cpuThrottle > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuThrottle })
  await page.goto(url)
  // One evaluation that resolves when the page has both times, instead of waitForFunction: that
  // injects Playwright's helper script (~5 ms of the page's main thread) and polls, and on two
  // cores both landed inside the window being measured, mostly on the slower-loading app page.
  // Plain CDP: Playwright's own evaluate installs its utility script in the page first.
  const answer = cdp.send('Runtime.evaluate', { expression: 'window.__bench.done', awaitPromise: true, returnByValue: true })
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no first rows within 30 s: ${url}`)), 30_000)),
  )
  const { result } = await Promise.race([answer, timeout])
    .catch(async (err: unknown) => {
      // Say which half never came: the data's arrival or the rows.
      const state = await page.evaluate('JSON.stringify({ dataAt: window.__bench.dataAt, rowsAt: window.__bench.rowsAt })').catch(String)
      throw new Error(`${String(err)} (${String(state)})`)
    })
    .finally(() => clearTimeout(timer))
  if (cpuThrottle > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 })
  await cdp.detach()
  const value = result.value as { ms?: unknown; fromEnd?: unknown } | undefined
  if (typeof value?.ms !== 'number' || typeof value.fromEnd !== 'number')
    throw new Error(`no timing from ${url}: ${JSON.stringify(result)}`)
  return { page, ms: value.ms, fromEnd: value.fromEnd }
}

/** Duration of each interaction: the longest Event Timing entry with its interactionId. Unreported ones took under 16 ms; counted as 16 (an upper bound). */
async function interactions(page: Page, expected: number, act: () => Promise<void>): Promise<number[]> {
  await page.evaluate(() => ((window as unknown as { __bench: Bench }).__bench.events = []))
  await act()
  await sleep(600)
  const events = (await readBench(page)).events.filter((e) => e.id > 0)
  const byId = new Map<number, number>()
  for (const e of events) byId.set(e.id, Math.max(byId.get(e.id) ?? 0, e.duration))
  const out = [...byId.values()]
  while (out.length < expected) out.push(16)
  return out
}

async function heapMiB(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('HeapProfiler.collectGarbage')
  await cdp.send('Performance.enable')
  const { metrics } = await cdp.send('Performance.getMetrics')
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? Number.NaN) / 1024 / 1024
}

/** The numbers page's loads: data arrival is the listing's first byte (INIT). */
const FIRST_BYTE = { anchor: 'responseStart' } as const
const THROTTLED = { anchor: 'responseStart', cpuThrottle: 4 } as const

async function numbersTable(browser: Browser, base: string) {
  const app: number[] = []
  const baseline: number[] = []
  const appFromEnd: number[] = []
  const baselineFromEnd: number[] = []
  const search: number[] = []
  const searchWorst: number[] = []
  const sort: number[] = []
  const sortWorst: number[] = []
  const dom: number[] = []
  const heap: number[] = []
  for (let run = 0; run < RUNS; run++) {
    log(`numbers table, run ${run + 1}/${RUNS}`)
    // Interleave: the order alternates so drift on a noisy machine falls on both sides.
    const order = run % 2 ? ['baseline', 'app'] : ['app', 'baseline']
    for (const which of order) {
      if (which === 'baseline') {
        for (let k = 0; k < FIRST_ROWS_LOADS; k++) {
          const b = await firstRows(browser, `${base}/__bench/baseline.html`, 'tbody tr[data-row]', '/api/allownednumbers', FIRST_BYTE)
          baseline.push(b.ms)
          baselineFromEnd.push(b.fromEnd)
          await b.page.close()
          await sleep(SETTLE_MS)
        }
        continue
      }
      // The first rows of a load are about 20 ms on both pages, in steps of a frame: medians of 11
      // read 0.83 to 1.31× over runs of the same code. The app's other loads only time them.
      for (let k = 1; k < FIRST_ROWS_LOADS; k++) {
        const quick = await firstRows(browser, `${base}/?bench=${run}.${k}`, 'tbody tr[aria-rowindex]', '/api/allownednumbers', FIRST_BYTE)
        app.push(quick.ms)
        appFromEnd.push(quick.fromEnd)
        await quick.page.close()
        await sleep(SETTLE_MS)
      }
      const { page, ms, fromEnd } = await firstRows(
        browser,
        `${base}/?bench=${run}`,
        'tbody tr[aria-rowindex]',
        '/api/allownednumbers',
        FIRST_BYTE,
      )
      app.push(ms)
      appFromEnd.push(fromEnd)
      // Counted once settled: the overscan rows join a frame after the first rows.
      await sleep(300)
      dom.push(await page.locator('table[aria-rowcount]').evaluate((t) => t.querySelectorAll('*').length))
      heap.push(await heapMiB(page))
      const box = page.getByRole('searchbox', { name: /Search/ })
      const s = await interactions(page, 4, async () => {
        await box.click()
        await page.evaluate(() => ((window as unknown as { __bench: Bench }).__bench.events = []))
        await page.keyboard.type('2323', { delay: 150 })
      })
      search.push(...s)
      searchWorst.push(Math.max(...s))
      await box.fill('')
      await sleep(300)
      const header = page.getByRole('columnheader', { name: /Webhook/ }).getByRole('button')
      const c = await interactions(page, 2, async () => {
        await header.click()
        await sleep(300)
        await header.click()
      })
      sort.push(...c)
      sortWorst.push(Math.max(...c))
      await page.close()
      await sleep(SETTLE_MS)
    }
  }
  const ratio = (xs: number[]) => Number((median(xs) / median(baseline)).toFixed(2))
  figures.push(
    figure('numbers (10,000 rows)', 'data arrival → first rows painted', 'ms', app, {
      budget: atMost(300),
      baseline: median(baseline),
      ratio: ratio(app),
    }),
  )
  figures.push(figure('numbers (10,000 rows)', 'baseline page: data → first rows', 'ms', baseline))
  // From the last byte (reported): the app's rows are usually painted before it (INIT).
  figures.push(
    figure('numbers (10,000 rows)', 'last byte of the data → first rows painted', 'ms', appFromEnd, { baseline: median(baselineFromEnd) }),
  )
  figures.push(figure('numbers (10,000 rows)', 'baseline page: last byte → first rows', 'ms', baselineFromEnd))
  // The medians' ratio (one value): the budget the baseline page is there for.
  figures.push(
    figure('numbers (10,000 rows)', 'first rows, app ÷ baseline page (medians)', '×', [ratio(app)], {
      budget: atMost(1.3),
      note: `${median(app).toFixed(0)} / ${median(baseline).toFixed(0)} ms`,
    }),
  )
  const interaction = 'keystroke and sort: median and worst'
  figures.push(
    figure('numbers (10,000 rows)', 'search keystroke (Event Timing)', 'ms', search, { budget: atMost(100), family: interaction }),
  )
  figures.push(
    figure('numbers (10,000 rows)', 'search keystroke, worst (INP-style)', 'ms', searchWorst, {
      budget: atMost(200, 'max'),
      family: interaction,
    }),
  )
  figures.push(figure('numbers (10,000 rows)', 'sort click (Event Timing)', 'ms', sort, { budget: atMost(100), family: interaction }))
  figures.push(
    figure('numbers (10,000 rows)', 'sort click, worst (INP-style)', 'ms', sortWorst, {
      budget: atMost(200, 'max'),
      family: interaction,
    }),
  )
  figures.push(figure('numbers (10,000 rows)', 'DOM nodes in the table', 'nodes', dom, { budget: under(1000) }))
  figures.push(figure('numbers (10,000 rows)', 'JS heap, table loaded (after GC)', 'MiB', heap, { budget: atMost(60) }))
}

/** Interleaved pairs for the throttled ratio: enough that its spread says whether 1.3× is met or luck. */
const THROTTLED_RUNS = Math.max(21, Number(process.env.BENCH_THROTTLED_RUNS ?? 21))
/**
 * How long the simulator holds the listing in the "settled" loads: longer than the app takes to
 * start under 4× throttling (its first render sends the request, and its first layout, the
 * header's chunks and the other queries' answers follow for another 400–700 ms), so the data
 * lands on a page that has finished starting, as it always does on the baseline page.
 */
const SETTLED_LATENCY_MS = Number(process.env.BENCH_SETTLED_LATENCY_MS ?? 2000)

/** Holds the next listing in the simulator (its latency fault, once): the same upstream delay for either page. */
async function holdNextListing(ms: number) {
  const res = await fetch(`http://127.0.0.1:${SIM_PORT}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'latency', op: 'allownednumbers', ms, times: 1 }),
  })
  if (!res.ok) throw new Error(`the simulator refused the latency fault: ${res.status} ${await res.text()}`)
}

/**
 * The numbers page's data → first rows ratio under 4× CPU throttling (Chromium's
 * Emulation.setCPUThrottlingRate, as Lighthouse's mobile preset). Each run is an app load and a
 * baseline load in alternating order; the spread is over the per-run ratios. Two conditions:
 * - settled: the upstream holds the listing SETTLED_LATENCY_MS, so it lands once either page has
 *   started. This is the figure for "what the page does with the data", the budgeted one.
 * - as served: the listing as fast as the simulator answers (123–463 ms after the request in one
 *   trace of four loads). The app sends it from its first render, so the answer often lands while
 *   the app is still starting (its first style and layout, its header's chunks, the other queries'
 *   answers: 100–250 ms of the throttled main thread) and the body is read only after that. The
 *   baseline sends it from a page that is already drawn. Which of the two happens depends on the
 *   simulator's speed that moment, not on the page: that is what moved the ratio from 1.2× to 3.4×
 *   between invocations. Reported, not budgeted: the start-up's own figures are the layout group's.
 */
async function numbersThrottled(browser: Browser, base: string) {
  const group = 'numbers (10,000 rows, 4× CPU throttling)'
  for (const condition of ['settled', 'as served'] as const) {
    const app: number[] = []
    const baseline: number[] = []
    const pairs: number[] = []
    for (let run = 0; run < THROTTLED_RUNS; run++) {
      log(`numbers table at 4× CPU throttling, ${condition}, run ${run + 1}/${THROTTLED_RUNS}`)
      const order = run % 2 ? (['baseline', 'app'] as const) : (['app', 'baseline'] as const)
      const got: Record<string, number> = {}
      for (const which of order) {
        if (condition === 'settled') await holdNextListing(SETTLED_LATENCY_MS)
        const { page, ms } =
          which === 'app'
            ? await firstRows(browser, `${base}/?bench=t${run}`, 'tbody tr[aria-rowindex]', '/api/allownednumbers', THROTTLED)
            : await firstRows(browser, `${base}/__bench/baseline.html`, 'tbody tr[data-row]', '/api/allownednumbers', THROTTLED)
        if (condition === 'settled') {
          // The hold must have applied to this page's request (and to nothing else before it).
          const waited = Number(
            await page.evaluate(
              "performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/allownednumbers')).map((e) => e.responseStart - e.requestStart)[0] ?? 0",
            ),
          )
          if (waited < SETTLED_LATENCY_MS)
            throw new Error(`the listing came ${waited.toFixed(0)} ms after its request, not held ${SETTLED_LATENCY_MS} ms`)
        }
        got[which] = ms
        await page.close()
        await sleep(SETTLE_MS)
      }
      app.push(got.app!)
      baseline.push(got.baseline!)
      pairs.push(got.app! / got.baseline!)
    }
    const spread = `per-run ratio over ${pairs.length} interleaved runs: median ${median(pairs).toFixed(2)}×, p25–p75 ${percentile(pairs, 25).toFixed(2)}–${percentile(pairs, 75).toFixed(2)}×, min–max ${Math.min(...pairs).toFixed(2)}–${Math.max(...pairs).toFixed(2)}×`
    log(`${condition}: app ${median(app).toFixed(0)} ms, baseline ${median(baseline).toFixed(0)} ms; ${spread}`)
    const settled = condition === 'settled'
    figures.push(
      figure(group, `${condition}: data arrival → first rows painted`, 'ms', app, {
        baseline: median(baseline),
        ratio: Number((median(app) / median(baseline)).toFixed(2)),
        note: spread,
      }),
    )
    figures.push(figure(group, `${condition}: baseline page: data → first rows`, 'ms', baseline))
    figures.push(figure(group, `${condition}: per-run ratio app ÷ baseline`, '×', pairs, settled ? { budget: atMost(1.3) } : {}))
  }
}

async function historyPage(browser: Browser, base: string) {
  const first: number[] = []
  const gapsMedian: number[] = []
  const gapsMax: number[] = []
  const gapsMaxFrames: number[] = []
  const swap: number[] = []
  const fromStart: number[] = []
  for (let run = 0; run < RUNS; run++) {
    log(`history page, run ${run + 1}/${RUNS}`)
    const { page, ms } = await firstRows(
      browser,
      `${base}/numbers/${BIG.number}?tid=${BIG.tid}&size=1000&run=${run}`,
      'tbody tr[aria-rowindex]',
      ['/api/smshistory', '/assets/history-page-'],
    )
    first.push(ms)
    fromStart.push((await readBench(page)).rowsAt ?? NaN)
    // Wait for the prefetch of 1001–2000 to land.
    await page.waitForFunction(
      () => performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/smshistory')).length >= 2,
      undefined,
      { timeout: 20_000 },
    )
    await sleep(500)
    // In-page code is passed as text: tsx would wrap named functions in a helper the page lacks.
    const gaps = (await page.evaluate(`(async () => {
      const el = document.querySelector('[role="region"][aria-label*="scrollable"]')
      const times = []
      await new Promise((r) => requestAnimationFrame(r))
      for (let i = 0; i < 40; i++) {
        el.scrollTop += 700
        times.push(await new Promise((r) => requestAnimationFrame(r)))
      }
      return times.slice(1).map((t, i) => t - times[i])
    })()`)) as number[]
    // Frames are counted at 60 Hz: the shortest step must be one such frame, or the count is wrong.
    if (Math.abs(Math.min(...gaps) - FRAME_MS) > 1.5)
      throw new Error(`history scroll: shortest frame ${Math.min(...gaps).toFixed(1)} ms, not 60 Hz`)
    gapsMedian.push(median(gaps))
    gapsMax.push(Math.max(...gaps))
    gapsMaxFrames.push(Math.round(Math.max(...gaps) / FRAME_MS))
    const t = (await page.evaluate(`(async () => {
      const next = [...document.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === 'Next page')
      const firstPos = () => Number((document.querySelector('tbody tr[aria-rowindex] td')?.textContent ?? '0').replace(/,/g, ''))
      const t0 = performance.now()
      next.click()
      return await new Promise((resolve) => {
        const check = () => {
          if (firstPos() >= 1001) requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)))
          else requestAnimationFrame(check)
        }
        check()
      })
    })()`)) as number
    swap.push(t)
    await page.close()
  }
  figures.push(
    figure('history (1,000 messages, thumbnails)', 'data and page code here → first rows painted', 'ms', first, {
      budget: atMost(300),
    }),
    figure('history (1,000 messages, thumbnails)', 'page load (navigation start) → first rows painted', 'ms', fromStart),
  )
  figures.push(
    figure('history (1,000 messages, thumbnails)', 'frame gap while scrolling, median of 40 steps', 'ms', gapsMedian, {
      budget: atMost(17.5),
      family: 'frames while scrolling: median gap and longest',
    }),
  )
  // The longest gap is budgeted in frames: three (50 ms at 60 Hz). rAF times are the frames'
  // vsync times, so a gap is a whole number of frames give or take a tenth of a millisecond, and
  // in ms a three-frame gap read 50.0 in some runs and 50.1 in others: that tenth, not the page,
  // decided three of seven full runs. Four frames (66.7 ms) still fail, as they did.
  figures.push(
    figure('history (1,000 messages, thumbnails)', 'longest frame over 40 scroll steps', 'ms', gapsMax, {
      note: `in frames of ${FRAME_MS.toFixed(2)} ms: ${gapsMaxFrames.join(', ')}`,
    }),
    figure('history (1,000 messages, thumbnails)', 'longest frame over 40 scroll steps, in frames', 'frames', gapsMaxFrames, {
      budget: atMost(3, 'max'),
      family: 'frames while scrolling: median gap and longest',
    }),
  )
  figures.push(
    figure('history (1,000 messages, thumbnails)', 'Next page (prefetched): click → rows swapped', 'ms', swap, {
      budget: atMost(100),
    }),
  )
}

// ── layout shift and largest contentful paint ───────────────────────────────────────────
/**
 * CLS as web-vitals defines it (the largest session window of layout-shift entries without
 * recent input: gaps under 1 s, windows up to 5 s) and the last largest-contentful-paint
 * candidate, both from the page's own PerformanceObservers, installed before any page script.
 */
const VITALS_INIT = `
  window.__vitals = { cls: 0, lcp: null, lcpNode: '', shifts: 0 };
  let win = 0, first = 0, last = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.hadRecentInput) continue;
      window.__vitals.shifts += 1;
      if (win && e.startTime - last < 1000 && e.startTime - first < 5000) { win += e.value; last = e.startTime; }
      else { win = e.value; first = last = e.startTime; }
      window.__vitals.cls = Math.max(window.__vitals.cls, win);
    }
  }).observe({ type: 'layout-shift', buffered: true });
  new PerformanceObserver((list) => {
    const e = list.getEntries().at(-1);
    if (!e) return;
    window.__vitals.lcp = e.startTime;
    window.__vitals.lcpNode = e.element ? e.element.tagName.toLowerCase() + (e.element.id ? '#' + e.element.id : '') + ' ' + (e.element.textContent || '').trim().slice(0, 30) : e.url || '';
  }).observe({ type: 'largest-contentful-paint', buffered: true });
`
type Vitals = { cls: number; lcp: number | null; lcpNode: string; shifts: number }

/** The two presets: a desktop as it comes, and a phone under Lighthouse's mobile throttling (150 ms RTT, 1.6 Mbps down, 4× CPU) over CDP. */
const PRESETS = {
  desktop: { viewport: { width: 1400, height: 900 }, throttle: false },
  mobile: { viewport: { width: 390, height: 844 }, throttle: true },
} as const

const LAYOUT_PAGES: Array<{ name: string; path: string; ready: string; lcp?: boolean }> = [
  // Ready: what the page is for is on screen, including what arrives last (the numbers audit).
  { name: 'numbers', path: '/', ready: '[data-col="audit"] .chip, [data-col="audit"] ul', lcp: true },
  { name: 'history', path: `/numbers/${BIG.number}?tid=${BIG.tid}`, ready: '[data-col="body"]', lcp: true },
  { name: 'message', path: `/numbers/${BIG.number}/messages/1?tid=${BIG.tid}`, ready: 'main h1' },
  { name: 'thread', path: `/numbers/${BIG.number}/thread?tid=${BIG.tid}&party=13105831111`, ready: '[data-col="body"]' },
  { name: 'search', path: '/search?q=appointment', ready: '[data-col="body"]' },
  { name: 'charts', path: `/charts?number=${BIG.number}`, ready: 'canvas' },
]

async function loadVitals(browser: Browser, url: string, preset: keyof typeof PRESETS, ready: string): Promise<Vitals> {
  const context = await browser.newContext({
    viewport: PRESETS[preset].viewport,
    isMobile: preset === 'mobile',
    deviceScaleFactor: preset === 'mobile' ? 2 : 1,
  })
  const page = await context.newPage()
  try {
    await page.addInitScript(VITALS_INIT)
    if (PRESETS[preset].throttle) {
      const cdp = await context.newCDPSession(page)
      await cdp.send('Network.enable')
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 150,
        downloadThroughput: (1.6 * 1024 * 1024) / 8,
        uploadThroughput: (750 * 1024) / 8,
      })
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })
    }
    await page.goto(url)
    // An error alert instead of the content (a page whose backend is not configured) ends the wait at once.
    await page.waitForSelector(`${ready}, [role="alert"]`, { timeout: 60_000 })
    if (!(await page.$(ready)))
      throw new Error(`alert instead of content: ${(await page.textContent('[role="alert"]'))?.trim().slice(0, 120)}`)
    // Late shifts (an image, a font, a deferred panel) land within this; LCP stops at first input, and there is none.
    await sleep(PRESETS[preset].throttle ? 3000 : 1500)
    return (await page.evaluate('window.__vitals')) as Vitals
  } finally {
    await context.close()
  }
}

async function layoutVitals(browser: Browser, base: string) {
  for (const p of LAYOUT_PAGES) {
    for (const preset of ['desktop', 'mobile'] as const) {
      const cls: number[] = []
      const lcp: number[] = []
      let node = ''
      let failure = ''
      for (let run = 0; run < LAYOUT_RUNS && !failure; run++) {
        log(`layout ${p.name} (${preset}), run ${run + 1}/${LAYOUT_RUNS}`)
        try {
          const v = await loadVitals(browser, `${base}${p.path}`, preset, p.ready)
          cls.push(v.cls)
          if (v.lcp !== null) lcp.push(v.lcp)
          node = v.lcpNode
        } catch (err) {
          // A page that is not there (yet) is reported, not fatal: the other figures still count.
          failure = String(err).split('\n')[0] ?? 'failed'
        }
        await sleep(SETTLE_MS)
      }
      if (!cls.length) {
        log(`layout ${p.name} (${preset}): not measured: ${failure}`)
        continue
      }
      figures.push(
        figure('layout (demo account)', `${p.name}, ${preset}: CLS (largest session window)`, '', cls, {
          budget: atMost(0.05, 'max'),
          family: 'CLS, worst run of each page and preset',
        }),
      )
      if (p.lcp && preset === 'mobile' && lcp.length)
        figures.push(
          figure('layout (demo account)', `${p.name}, mobile throttled: LCP`, 'ms', lcp, {
            budget: atMost(2500),
            family: 'LCP, mobile throttled',
            note: `LCP element: ${node}`,
          }),
        )
    }
  }
}

// ── proxy and simulator ─────────────────────────────────────────────────────────────────
async function timed(pool: Pool, path: string, body: string): Promise<number> {
  const t0 = process.hrtime.bigint()
  const res = await pool.request({ path, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
  await res.body.arrayBuffer()
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode} from ${path}`)
  return Number(process.hrtime.bigint() - t0) / 1e6
}

async function proxyOverhead() {
  const direct = new Pool(`http://127.0.0.1:${SIM_PORT}`, { connections: 16 })
  const proxied = new Pool(`http://127.0.0.1:${PROXY_PORT}`, { connections: 16 })
  const params = new URLSearchParams({ number: BIG.number, tid: BIG.tid, history_start: '1', history_end: '10' })
  const directBody = `${params}&sys_id=${LARGE_CREDENTIALS.sysId}&auth_token=${LARGE_CREDENTIALS.authToken}`
  const proxyBody = params.toString()
  // Each stretch of runs is bounded: a stalled server ends the group instead of the bench.
  let deadline = 0
  const seq = async (pool: Pool, body: string, n: number) => {
    const out: number[] = []
    for (let i = 0; i < n && Date.now() < deadline; i++) out.push(await timed(pool, '/api/smshistory', body))
    return out
  }
  const conc = async (pool: Pool, body: string, workers: number, each: number) => {
    const out: number[] = []
    const t0 = performance.now()
    await Promise.all(Array.from({ length: workers }, async () => out.push(...(await seq(pool, body, each)))))
    return { lat: out, rps: out.length / ((performance.now() - t0) / 1000) }
  }
  deadline = Date.now() + 120_000
  await seq(direct, directBody, 100) // warm-up both paths
  await seq(proxied, proxyBody, 100)
  /** Interleaved runs (direct and proxied in alternating order) while `going()` holds, at most `runs`. */
  const measure = async (runs: number, going: () => Promise<boolean>) => {
    const addedMean: number[] = []
    const addedP99: number[] = []
    const ratio: number[] = []
    const dMeans: number[] = []
    const pMeans: number[] = []
    const dP99: number[] = []
    for (let run = 0; run < runs && (await going()); run++) {
      log(`proxy overhead, run ${run + 1}/${runs}`)
      deadline = Date.now() + 60_000
      const first = run % 2 ? [proxied, direct] : [direct, proxied]
      const r1 = new Map<Pool, number[]>()
      for (const p of first) r1.set(p, await seq(p, p === direct ? directBody : proxyBody, 300))
      // A run cut short by its deadline has no figures; the runs before it stand.
      if ([...r1.values()].some((xs) => xs.length === 0)) break
      const dm = mean(r1.get(direct)!)
      const pm = mean(r1.get(proxied)!)
      dMeans.push(dm)
      pMeans.push(pm)
      addedMean.push(pm - dm)
      const r10 = new Map<Pool, { lat: number[]; rps: number }>()
      for (const p of first) r10.set(p, await conc(p, p === direct ? directBody : proxyBody, 10, 100))
      if ([...r10.values()].some((r) => r.lat.length === 0)) break
      dP99.push(percentile(r10.get(direct)!.lat, 99))
      addedP99.push(percentile(r10.get(proxied)!.lat, 99) - percentile(r10.get(direct)!.lat, 99))
      ratio.push(r10.get(proxied)!.rps / r10.get(direct)!.rps)
    }
    return { addedMean, addedP99, ratio, dMeans, pMeans, dP99 }
  }
  const idle = await measure(RUNS, () => Promise.resolve(true))
  const group = 'proxy (loopback, separate processes)'
  figures.push(
    figure(group, 'added latency, mean at concurrency 1', 'ms', idle.addedMean, {
      budget: atMost(1),
      baseline: median(idle.dMeans),
      note: `direct mean ${median(idle.dMeans).toFixed(2)} ms, via proxy ${median(idle.pMeans).toFixed(2)} ms`,
    }),
  )
  figures.push(
    figure(group, 'added latency, p99 at concurrency 10', 'ms', idle.addedP99, {
      budget: atMost(5),
      note: `direct p99 ${median(idle.dP99).toFixed(2)} ms`,
    }),
  )
  figures.push(figure(group, 'throughput via proxy ÷ direct, concurrency 10', '×', idle.ratio))

  // The same requests while this server syncs the 1,000,000-message history at its default rate
  // (SYNC_RATE 10 pages a second, as an operator runs it): the sync's fetching, storing and index
  // building share the server with the requests measured. Only runs that start while the number
  // is still syncing count.
  let busyAnswers = 0
  const status = async () => {
    const res = await proxied.request({ path: '/api/index/status', method: 'GET' })
    if (res.statusCode !== 200) {
      // The database busy (building the million's indexes at the end of the walk) answers 503:
      // the sync is still running.
      await res.body.text()
      busyAnswers++
      return { number: MILLION.number, state: 'syncing', indexed: Number.NaN }
    }
    const body = (await res.body.json()) as { numbers: Array<{ number: string; state: string; indexed: number }> }
    return body.numbers.find((n) => n.number === MILLION.number)
  }
  const started = await proxied.request({
    path: '/api/index/sync',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(MILLION),
  })
  const startedBody = await started.body.text()
  if (started.statusCode >= 300) throw new Error(`index sync: HTTP ${started.statusCode} ${startedBody}`)
  let indexedAtEnd = 0
  const during = await measure(RUNS, async () => {
    const s = await status()
    indexedAtEnd = s?.indexed ?? 0
    return s?.state === 'syncing' || s?.state === 'queued'
  })
  if (!during.addedP99.length) throw new Error('the sync ended before a run could start')
  figures.push(
    figure(group, 'added latency, p99 at concurrency 10, while a sync runs', 'ms', during.addedP99, {
      budget: atMost(10),
      note: `${during.addedP99.length} runs during the 1,000,000-message sync (${Number.isNaN(indexedAtEnd) ? 'building its indexes' : `${indexedAtEnd.toLocaleString('en-US')} rows stored`} when the last began${busyAnswers ? `; the index status answered busy ${busyAnswers}×` : ''}); direct p99 ${median(during.dP99).toFixed(2)} ms`,
    }),
  )
  figures.push(
    figure(group, 'added latency, mean at concurrency 1, while a sync runs', 'ms', during.addedMean, {
      baseline: median(during.dMeans),
      note: `direct mean ${median(during.dMeans).toFixed(2)} ms, via proxy ${median(during.pMeans).toFixed(2)} ms`,
    }),
  )
  await direct.close()
  await proxied.close()
}

async function simulatorPage() {
  const pool = new Pool(`http://127.0.0.1:${SIM_PORT}`, { connections: 1 })
  const samples: number[] = []
  for (let i = 0; i < RUNS * 6; i++) {
    const start = 1 + ((i * 104_729) % 998_000)
    const body = `${new URLSearchParams({ number: MILLION.number, tid: MILLION.tid, history_start: String(start), history_end: String(start + 999) })}&sys_id=${LARGE_CREDENTIALS.sysId}&auth_token=${LARGE_CREDENTIALS.authToken}`
    samples.push(await timed(pool, '/api/smshistory', body))
  }
  await pool.close()
  figures.push(figure('simulator', '1,000-record page of the 1,000,000-message history', 'ms', samples.slice(2), { budget: under(50) }))
}

async function exportCsv() {
  const pool = new Pool(`http://127.0.0.1:${PROXY_PORT}`)
  const res = await pool.request({
    path: '/api/allownednumbers',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  })
  const data = ((await res.body.json()) as { data: Array<Record<string, string>> }).data
  await pool.close()
  const rows = data.map((r) => [r.number, r.type, r.country, r.tid, r.webhook, r.dlr, 'dlr: Missing; webhook: Outlier'])
  const samples: number[] = []
  for (let i = 0; i < RUNS * 3 + 2; i++) {
    const t0 = performance.now()
    const text = toCsv(['Number', 'Type', 'Country', 'tid', 'Webhook', 'DLR', 'Audit'], rows)
    samples.push(performance.now() - t0)
    if (text.length < rows.length) throw new Error('export produced too little')
  }
  figures.push(
    figure('export', `CSV of ${rows.length.toLocaleString('en-US')} visible rows × 7 columns`, 'ms', samples.slice(2), {
      budget: atMost(100),
    }),
  )
}

/**
 * Each server of the bench gets its own fresh index directory: never the working tree's
 * .switchboard-data (which `npm start` may have open), never one shared by two servers at once.
 */
const dataRoot = mkdtempSync(join(tmpdir(), 'switchboard-bench-'))
let dataDirs = 0
const dataDir = (name: string) => join(dataRoot, `${name}-${++dataDirs}`)

// ── report ──────────────────────────────────────────────────────────────────────────────
function report() {
  // Below 1, three decimals: a CLS of 0.004 is not 0.00 against a budget of 0.05.
  const fmt = (n: number | undefined) =>
    n === undefined || Number.isNaN(n) ? '' : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) < 1 && n !== 0 ? n.toFixed(3) : n.toFixed(2)
  const lines = [['group', 'figure', 'median', 'min–max', 'budget', 'baseline', 'ok']]
  for (const f of figures) {
    const b = f.budget
    const budget = b ? `${b.on === 'max' ? 'worst ' : b.on === 'min' ? 'best ' : ''}${b.op} ${b.limit} ${f.unit}` : ''
    lines.push([
      f.group,
      f.name,
      `${fmt(f.value)} ${f.unit}`,
      f.runs > 1 ? `${fmt(f.min)}–${fmt(f.max)}` : '',
      budget,
      f.baseline === undefined ? '' : `${fmt(f.baseline)} ${f.unit}`,
      b ? (passes(f) ? 'yes' : `NO (${fmt(checked(f))})`) : '',
    ])
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)))
  for (const l of lines) console.log(l.map((c, i) => c.padEnd(widths[i]!)).join('  '))
}

async function main() {
  bundle()
  const procs: Proc[] = []
  let browser: Browser | undefined
  try {
    const startStack = async () => {
      procs.push(await startSimulator(SIM_PORT))
      procs.push(
        await startProxy(PROXY_PORT, {
          API_BASE_URL: `http://127.0.0.1:${SIM_PORT}`,
          API_SYS_ID: LARGE_CREDENTIALS.sysId,
          API_AUTH_TOKEN: LARGE_CREDENTIALS.authToken,
          LOG_REQUESTS: '0',
          DATA_DIR: dataDir('large'),
          // Idle means idle: the server does not index the 10,000-number account on its own
          // while the figures are taken (the proxy group starts the sync it measures against).
          INDEX_AUTO_SYNC: 'off',
        }),
      )
    }
    // The baseline page is served by the same proxy as the app: same origin, same response, same
    // path. Copied before the proxy starts: its static files are a map built once at start-up.
    mkdirSync(join(ROOT, 'dist/__bench'), { recursive: true })
    for (const f of ['baseline.html', 'baseline.js']) copyFileSync(join(ROOT, 'bench', f), join(ROOT, 'dist/__bench', f))
    await startStack()
    const executablePath = findChromium()
    browser = await chromium.launch({ executablePath, args: [...CHROMIUM_ARGS, '--enable-precise-memory-info'] })
    if (ONLY.has('numbers')) await numbersTable(browser, `http://127.0.0.1:${PROXY_PORT}`)
    if (ONLY.has('numbers-throttled')) await numbersThrottled(browser, `http://127.0.0.1:${PROXY_PORT}`)
    if (ONLY.has('history')) await historyPage(browser, `http://127.0.0.1:${PROXY_PORT}`)
    if (ONLY.has('layout') || ONLY.has('pages')) {
      const demo = await startProxy(DEMO_PROXY_PORT, {
        API_BASE_URL: `http://127.0.0.1:${SIM_PORT}`,
        API_SYS_ID: DEMO_CREDENTIALS.sysId,
        API_AUTH_TOKEN: DEMO_CREDENTIALS.authToken,
        LOG_REQUESTS: '0',
        DATA_DIR: dataDir('demo'),
        // The whole account at full speed; nothing is timed until it is done.
        SYNC_RATE: '0',
      })
      try {
        const demoBase = `http://127.0.0.1:${DEMO_PROXY_PORT}`
        const indexed = await indexEverything(demoBase, log)
        await sleep(2000)
        if (ONLY.has('layout')) await layoutVitals(browser, demoBase)
        if (ONLY.has('pages'))
          figures.push(
            ...(await pagesGroup(
              browser,
              demoBase,
              RUNS,
              log,
              `pages (demo account, ${indexed.toLocaleString('en-US')} messages indexed)`,
            )),
          )
      } finally {
        await demo.stop()
      }
    }
    await browser.close()
    browser = undefined
    // The server-side figures get fresh proxy and simulator processes, and Chromium's processes
    // time to exit: on two cores, browser teardown and the heap the browser phases left in the
    // proxy (two 1.9 MB listings parsed per run) otherwise landed in the first proxy runs (the
    // concurrency-10 p99 read 2.6–4.4 ms after the browser phases, 1.4–1.7 ms alone).
    for (const p of procs.splice(0).reverse()) await p.stop()
    await sleep(2000)
    await startStack()
    if (ONLY.has('proxy')) await proxyOverhead()
    if (ONLY.has('simulator')) await simulatorPage()
    if (ONLY.has('export')) await exportCsv()
  } finally {
    await browser?.close()
    rmSync(join(ROOT, 'dist/__bench'), { recursive: true, force: true })
    for (const p of procs.reverse()) await p.stop()
    rmSync(dataRoot, { recursive: true, force: true })
  }
  report()
  const file = writeGroup(ROOT, 'ui', figures, { runs: RUNS, node: process.version })
  console.log(`\nwritten to ${file} (${RUNS} interleaved runs per UI figure)`)
  const miss = missed(figures)
  if (miss.length) {
    console.log(`\n${miss.length} budget(s) missed: ${miss.join('; ')}`)
    process.exit(1)
  }
  console.log('\nall budgets met')
}

await main().catch((err: unknown) => {
  // The figures taken before the failure still go to the summary, beside the error.
  console.error(err)
  writeGroup(ROOT, 'ui', figures, { runs: RUNS, node: process.version }, err)
  process.exit(1)
})
