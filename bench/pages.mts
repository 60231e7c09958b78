/**
 * The pages over the message index: a search keystroke → results painted, a thread
 * opened → its newest message shown, the charts page → the uPlot canvases drawn. Measured on the
 * demo account (60 numbers, the 1,000,000-message history among them) fully indexed on a fresh
 * PGlite directory, in headless Chromium on the production build. Each run is a fresh page (a
 * fresh browser context: no HTTP or query cache carried over). Used by bench/run.mts.
 */
import type { Browser, Page } from 'playwright-core'
import { atMost, figure, median, type Figure } from './stats.ts'

/** The search box's debounce: src/features/search/use-debounced-param.ts (250 ms by default, as the search page uses it). */
const SEARCH_DEBOUNCE_MS = 250
/** Typing speed for the search: a fast typist (about 200 characters a minute), every key inside the debounce. */
const KEY_DELAY_MS = 60
const MILLION = { number: '13053851232', tid: 'YUFZUGT21996' }
/** Words a support agent might type, each run a different one (no server or client cache helps a later run). */
const QUERIES = [
  'appointment',
  'shipped',
  'sunday',
  'call me',
  'code is',
  'tuesday',
  'track',
  'cancel',
  'store',
  'line two',
  'not bold',
  'order',
]

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Installed before any page script. `when(check)` resolves with the time of the animation frame
 * that paints the state `check` recognises: checked on every DOM mutation (then the next frame is
 * the painting one) and on every frame (a canvas drawn without a DOM mutation: uPlot draws in a
 * microtask after inserting its canvas). `cold` does the same from navigation start for the check
 * named by the page (`window.__coldCheck`). The fetch and history wrappers record when the search
 * answer arrived and when the debounced URL was written.
 */
const PAGES_INIT = (coldCheck: string) => `
  const P = (window.__pages = { lastInput: 0, urlAt: [], answers: [] });
  document.addEventListener('input', (e) => { P.lastInput = e.timeStamp }, true);
  for (const k of ['pushState', 'replaceState']) {
    const orig = history[k];
    history[k] = function (...a) { const r = orig.apply(this, a); P.urlAt.push({ at: performance.now(), url: location.search }); return r };
  }
  const origFetch = window.fetch;
  window.fetch = async function (...a) {
    const r = await origFetch.apply(this, a);
    P.answers.push({ at: performance.now(), url: String(a[0] && a[0].url ? a[0].url : a[0]) });
    return r;
  };
  P.threadShown = (old) => {
    const r = document.querySelector('[role="region"][aria-label^="Messages with"]');
    if (!r || r === old || !r.querySelector('ol > li[data-ordinal]')) return false;
    return r.scrollHeight - r.scrollTop - r.clientHeight < 2;
  };
  const blank = (c) => {
    if (!c.width || !c.height) return true;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < d.length; i += 4) if (d[i]) return false;
    return true;
  };
  P.chartsDrawn = () => {
    const cs = document.querySelectorAll('.uplot canvas');
    return cs.length >= 2 && [...cs].every((c) => !blank(c));
  };
  P.when = (check) => new Promise((resolve) => {
    let done = false;
    const finish = (inFrame) => {
      if (done) return;
      done = true;
      mo.disconnect();
      if (inFrame) resolve(performance.now());
      else requestAnimationFrame(() => resolve(performance.now()));
    };
    const mo = new MutationObserver(() => { if (check()) finish(false) });
    mo.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
    const frame = () => { if (done) return; if (check()) finish(true); else requestAnimationFrame(frame) };
    requestAnimationFrame(frame);
  });
  ${coldCheck ? `P.cold = P.when(() => document.readyState !== 'loading' && (${coldCheck})());` : ''}
`

async function openPage(browser: Browser, url: string, coldCheck = ''): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
  await page.addInitScript(PAGES_INIT(coldCheck))
  await page.goto(url)
  return page
}

/** Evaluate an expression that yields a promise, bounded: a page that never gets there is an error, not a hang. */
async function within<T>(page: Page, expression: string, what: string, ms = 30_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms)))
  try {
    return (await Promise.race([page.evaluate(expression), timeout])) as T
  } finally {
    clearTimeout(timer)
  }
}

// ── the index ───────────────────────────────────────────────────────────────────────────
interface IndexNumberStatus {
  number: string
  state: string
  indexed: number
  upstreamTotal: number | null
}

/** Ask the server to index every number of the account and wait until each holds its whole history. Returns the messages indexed. */
export async function indexEverything(base: string, log: (s: string) => void, timeoutMs = 600_000): Promise<number> {
  const t0 = Date.now()
  // The index learns the account's numbers from the listing.
  await fetch(`${base}/api/allownednumbers`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })
  const res = await fetch(`${base}/api/index/sync`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"all":true}',
  })
  if (!res.ok) throw new Error(`index sync: HTTP ${res.status} ${await res.text()}`)
  let lastLog = 0
  for (;;) {
    // A fresh connection each time: while the index builds its indexes the server may stall past a
    // pooled socket's keep-alive, and a reset pooled socket is not a failed index.
    const status = (await fetch(`${base}/api/index/status`, { headers: { connection: 'close' } })
      .then((r) => r.json())
      .catch(() => null)) as { numbers: IndexNumberStatus[] } | null
    if (!status) {
      await sleep(1000)
      continue
    }
    const busy = status.numbers.filter((n) => n.state !== 'idle' || n.upstreamTotal === null || n.indexed < n.upstreamTotal)
    const indexed = status.numbers.reduce((a, n) => a + n.indexed, 0)
    if (status.numbers.length > 0 && busy.length === 0) {
      log(
        `index: ${status.numbers.length} numbers, ${indexed.toLocaleString('en-US')} messages in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
      )
      return indexed
    }
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`index not complete within ${timeoutMs / 1000} s: ${busy.map((n) => n.number).join(', ')}`)
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now()
      log(`index: ${indexed.toLocaleString('en-US')} messages so far, ${busy.length} numbers to go`)
    }
    await sleep(1000)
  }
}

// ── search ──────────────────────────────────────────────────────────────────────────────
/** The search page's answer for `q` is on screen: the URL holds it, its answer arrived, and the count no longer says "updating". */
const searchShown = (q: string) => `() => {
  const P = window.__pages;
  if (new URLSearchParams(location.search).get('q') !== ${JSON.stringify(q)}) return false;
  if (!P.answers.some((a) => a.url.includes('/api/index/search') && new URL(a.url, location.href).searchParams.get('q') === ${JSON.stringify(q)})) return false;
  // The count's own status line: the section holds other live regions (coverage, announcements), some empty.
  const counted = [...document.querySelectorAll('section[aria-labelledby="search-heading"] p[role="status"]')].some((s) => /^[\\d,]+ match(es)?$/.test(s.textContent.trim()));
  return counted && !!document.querySelector('table tbody tr[aria-rowindex]');
}`

async function search(browser: Browser, base: string, runs: number, log: (s: string) => void, figures: Figure[], group: string) {
  const total: number[] = []
  const afterDebounce: number[] = []
  const debounce: number[] = []
  const request: number[] = []
  for (let run = 0; run < runs; run++) {
    const q = QUERIES[run % QUERIES.length]!
    log(`pages: search "${q}", run ${run + 1}/${runs}`)
    const page = await openPage(browser, `${base}/search`)
    try {
      // The page opens on every message (no filter): typing starts once that count is shown.
      await page
        .waitForFunction(
          () =>
            [...document.querySelectorAll('section[aria-labelledby="search-heading"] p[role="status"]')].some((s) =>
              /^[\d,]+ match(es)?$/.test(s.textContent?.trim() ?? ''),
            ),
          undefined,
          { timeout: 30_000 },
        )
        .catch(async (err: unknown) => {
          // Say what the page showed instead, so a failed run names its cause.
          const shown = await page.evaluate(
            () =>
              `status: ${JSON.stringify([...document.querySelectorAll('section[aria-labelledby="search-heading"] p[role="status"]')].map((p) => p.textContent))}; ` +
              `alerts: ${JSON.stringify([...document.querySelectorAll('[role="alert"]')].map((a) => a.textContent))}`,
          )
          throw new Error(`the search page showed no count within 30 s (${shown}): ${String(err)}`)
        })
      await sleep(300)
      // Not the promise itself: evaluate would wait for it.
      await page.evaluate(`window.__pages.done = window.__pages.when(${searchShown(q)}); undefined`)
      await page.getByRole('searchbox', { name: /Search all messages/ }).focus()
      await page.keyboard.type(q, { delay: KEY_DELAY_MS })
      const painted = await within<number>(page, 'window.__pages.done', `search "${q}"`)
      const { lastInput, urlAt, answers } = (await page.evaluate(
        '({ lastInput: window.__pages.lastInput, urlAt: window.__pages.urlAt, answers: window.__pages.answers })',
      )) as { lastInput: number; urlAt: Array<{ at: number; url: string }>; answers: Array<{ at: number; url: string }> }
      const committed = urlAt.find((u) => new URLSearchParams(u.url).get('q') === q)?.at
      const answered = answers.find((a) => a.url.includes('/api/index/search') && new URL(a.url, base).searchParams.get('q') === q)?.at
      if (!committed || !answered) throw new Error(`search "${q}": the URL never held the query, or no answer came`)
      total.push(painted - lastInput)
      afterDebounce.push(painted - committed)
      debounce.push(committed - lastInput)
      request.push(answered - committed)
    } finally {
      await page.close()
    }
    await sleep(500)
  }
  const note = `${Math.min(runs, QUERIES.length)} different words typed at ${KEY_DELAY_MS} ms a key over all 60 numbers; the box debounces ${SEARCH_DEBOUNCE_MS} ms`
  figures.push(
    figure(group, `search: last keystroke → results painted (incl. the ${SEARCH_DEBOUNCE_MS} ms debounce)`, 'ms', total, {
      // The issue's 150 ms is "Event Timing plus the request"; the debounce comes on top by design.
      budget: atMost(150 + SEARCH_DEBOUNCE_MS),
      family: 'search: keystroke → results, ± the debounce',
      note,
    }),
  )
  figures.push(
    figure(group, 'search: last keystroke → debounced URL written', 'ms', debounce, { note: `debounce ${SEARCH_DEBOUNCE_MS} ms` }),
  )
  figures.push(
    figure(group, 'search: debounce fired → results painted (request + render)', 'ms', afterDebounce, {
      budget: atMost(150),
      family: 'search: keystroke → results, ± the debounce',
      note: `of which the request (URL written → answer's headers): median ${median(request).toFixed(0)} ms`,
    }),
  )
}

// ── thread ──────────────────────────────────────────────────────────────────────────────
async function thread(browser: Browser, base: string, runs: number, log: (s: string) => void, figures: Figure[], group: string) {
  const parties = (
    (await (await fetch(`${base}/api/index/parties?number=${MILLION.number}`)).json()) as {
      parties: Array<{ party: string; count: number }>
    }
  ).parties
  if (parties.length < 2) throw new Error(`thread: ${parties.length} parties on ${MILLION.number}`)
  const click: number[] = []
  const cold: number[] = []
  let counts = ''
  for (let run = 0; run < runs; run++) {
    const from = parties[run % parties.length]!
    const to = parties[(run + 1) % parties.length]!
    counts = `${Math.min(...parties.map((p) => p.count)).toLocaleString('en-US')}–${Math.max(...parties.map((p) => p.count)).toLocaleString('en-US')} messages a thread`
    log(`pages: thread, run ${run + 1}/${runs}`)
    const page = await openPage(
      browser,
      `${base}/numbers/${MILLION.number}/thread?tid=${MILLION.tid}&party=${from.party}`,
      '() => window.__pages.threadShown(null)',
    )
    try {
      cold.push(await within<number>(page, 'window.__pages.cold', 'thread page load'))
      await sleep(500)
      // The click on another party in the list: the whole thread with them, opened at the newest message.
      const ms = await within<number>(
        page,
        `(() => {
          const P = window.__pages;
          const old = document.querySelector('[role="region"][aria-label^="Messages with"]');
          const link = [...document.querySelectorAll('nav[aria-labelledby="parties-heading"] a')].find((a) => new URL(a.href).searchParams.get('party') === ${JSON.stringify(to.party)});
          if (!link) throw new Error('no link to party ${to.party}');
          const shown = P.when(() => P.threadShown(old));
          const t0 = performance.now();
          link.click();
          return shown.then((t) => t - t0);
        })()`,
        'thread click',
      )
      // Outside the timing: the message at the bottom is the newest of the thread.
      const newest = (await page.evaluate(`(() => {
        const items = [...document.querySelectorAll('[role="region"][aria-label^="Messages with"] ol > li[data-ordinal]')].map((li) => Number(li.dataset.ordinal));
        return items.length && items.at(-1) === Math.max(...items);
      })()`)) as boolean
      if (!newest) throw new Error('thread: the message at the bottom is not the newest')
      click.push(ms)
    } finally {
      await page.close()
    }
    await sleep(500)
  }
  const note = `${parties.length} parties of the 1,000,000-message number, ${counts}`
  figures.push(figure(group, 'thread: click a party → newest message shown', 'ms', click, { budget: atMost(200), note }))
  figures.push(figure(group, 'thread: page load (navigation start) → newest message shown', 'ms', cold, { note }))
}

// ── charts ──────────────────────────────────────────────────────────────────────────────
async function charts(browser: Browser, base: string, runs: number, log: (s: string) => void, figures: Figure[], group: string) {
  const spa: number[] = []
  const statsStart: number[] = []
  const statsEnd: number[] = []
  const cold: number[] = []
  let days = 0
  for (let run = 0; run < runs; run++) {
    log(`pages: charts, run ${run + 1}/${runs}`)
    // From the numbers page, the way the router moves (pushState + popstate, as its Link does): the
    // charts chunk (uPlot) is not loaded yet, as on a first visit.
    const page = await openPage(browser, `${base}/`)
    try {
      await page.waitForSelector('tbody tr[aria-rowindex]', { timeout: 30_000 })
      await sleep(500)
      const r = await within<{ ms: number; statsStart: number; statsEnd: number }>(
        page,
        `(() => {
            const P = window.__pages;
            const drawn = P.when(P.chartsDrawn);
            const t0 = performance.now();
            history.pushState(null, '', '/charts?range=1y');
            dispatchEvent(new PopStateEvent('popstate'));
            return drawn.then((t) => {
              const stats = performance.getEntriesByType('resource').find((e) => e.startTime > t0 && e.name.includes('/api/index/stats'));
              return { ms: t - t0, statsStart: stats ? stats.startTime - t0 : NaN, statsEnd: stats ? stats.responseEnd - t0 : NaN };
            });
          })()`,
        'charts navigation',
      )
      spa.push(r.ms)
      statsStart.push(r.statsStart)
      statsEnd.push(r.statsEnd)
      days = await page.locator('table tbody tr').count()
    } finally {
      await page.close()
    }
    await sleep(500)
    const direct = await openPage(browser, `${base}/charts?range=1y`, '() => window.__pages.chartsDrawn()')
    try {
      cold.push(await within<number>(direct, 'window.__pages.cold', 'charts page load'))
    } finally {
      await direct.close()
    }
    await sleep(500)
  }
  const note = `account-wide, range "A year": ${days} days in the figures table`
  figures.push(
    figure(group, 'charts: navigate from the numbers page → both charts drawn', 'ms', spa, {
      budget: atMost(300),
      note: `${note}; medians: the figures' request starts at ${median(statsStart).toFixed(0)} ms (once the charts chunk is in), its answer ends at ${median(statsEnd).toFixed(0)} ms`,
    }),
  )
  figures.push(figure(group, 'charts: page load (navigation start) → both charts drawn', 'ms', cold, { note }))
}

export async function pagesGroup(browser: Browser, base: string, runs: number, log: (s: string) => void, group: string): Promise<Figure[]> {
  const figures: Figure[] = []
  await search(browser, base, runs, log, figures, group)
  await thread(browser, base, runs, log, figures, group)
  await charts(browser, base, runs, log, figures, group)
  return figures
}
