// `npm run lighthouse`: Lighthouse 12 (from the npm registry through npx, downloaded on first use)
// on the numbers page and a history page of `npm start` with the embedded simulator's demo account,
// mobile and desktop presets, several runs each; prints the medians of the performance score, FCP,
// LCP and CLS and writes .bench/lighthouse.json. The outside check of `npm run bench`'s layout
// group. Not part of `npm test`.
//
// Runs Chromium and may rebuild dist/: on a shared machine run it under the browser lock,
// e.g. `flock /tmp/pw.lock npm run lighthouse`.
//
// Variables: LIGHTHOUSE_RUNS (3), LIGHTHOUSE_PAGES (numbers,history) and LIGHTHOUSE_PRESETS
// (mobile,desktop) to run fewer, CHROME_PATH (else `chromium`, `chromium-browser`, `google-chrome`
// from the PATH), LIGHTHOUSE_INDEX=0 to measure before the message index holds anything (by
// default the whole account is indexed first, as the bench's layout group does).
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { indexEverything } from '../bench/pages.mts'

const root = process.cwd()
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3)
const INDEX = process.env.LIGHTHOUSE_INDEX !== '0'
const LIGHTHOUSE = 'lighthouse@12'
function only(list, env) {
  if (!process.env[env]) return list
  const names = list.map((x) => x.name ?? x)
  const wanted = process.env[env].split(',').map((w) => w.trim())
  const unknown = wanted.filter((w) => !names.includes(w))
  if (unknown.length) throw new Error(`${env}: unknown ${unknown.join(', ')} (choose from ${names.join(', ')})`)
  return list.filter((x) => wanted.includes(x.name ?? x))
}
const PAGES = only(
  [
    { name: 'numbers', path: '/' },
    // The demo account's 2,345-message number, as the bench's layout group opens it.
    { name: 'history', path: '/numbers/18323232323?tid=PUHMGWS98301' },
  ],
  'LIGHTHOUSE_PAGES',
)
const PRESETS = only(['mobile', 'desktop'], 'LIGHTHOUSE_PRESETS')

const log = (s) => process.stderr.write(`${s}\n`)

function chromePath() {
  if (process.env.CHROME_PATH) return process.env.CHROME_PATH
  for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
    try {
      const p = execFileSync('which', [name], { encoding: 'utf8' }).trim()
      if (p) return p
    } catch {
      /* try the next */
    }
  }
  throw new Error('No Chromium found: set CHROME_PATH, or install one (`apt-get install -y chromium`).')
}

/** A free loopback port (the kernel's pick, released at once). */
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })

/** `npm start` as it is (scripts/start.mjs: build what is stale, then the compiled server), on its own port and index directory. */
async function startServer(port, dataDir) {
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SYNC_RATE: '0',
    LOG_REQUESTS: '0',
    // Empty means unset, also over a .env file: always the embedded simulator's demo account.
    API_BASE_URL: '',
    API_SYS_ID: '',
    API_AUTH_TOKEN: '',
    SIMULATOR_ACCOUNT: 'demo',
    DATABASE_URL: '',
    INDEX: 'on',
    ACCESS: 'local',
  }
  const child = spawn(process.execPath, [join(root, 'scripts/start.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (out += d))
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
      setTimeout(() => child.kill('SIGKILL'), 5000).unref()
    })
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the server did not start within 5 minutes:\n${out}`)), 300_000)
    child.stdout.on('data', () => {
      if (/Switchboard on /.test(out)) {
        clearTimeout(t)
        resolve()
      }
    })
    child.once('exit', (code) => {
      clearTimeout(t)
      reject(new Error(`the server exited (${code}):\n${out}`))
    })
  })
  return { stop }
}

function lighthouse(url, preset, outFile, chrome) {
  const args = [
    '-y',
    LIGHTHOUSE,
    url,
    '--quiet',
    '--only-categories=performance',
    '--output=json',
    `--output-path=${outFile}`,
    '--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage',
    ...(preset === 'desktop' ? ['--preset=desktop'] : []),
  ]
  try {
    execFileSync('npx', args, { stdio: 'pipe', encoding: 'utf8', env: { ...process.env, CHROME_PATH: chrome } })
  } catch (err) {
    // npm's and Lighthouse's own chatter is shown only when a run fails.
    throw new Error(`Lighthouse failed on ${url} (${preset}):\n${err.stderr ?? err.message}`, { cause: err })
  }
  const r = JSON.parse(readFileSync(outFile, 'utf8'))
  if (r.runtimeError) throw new Error(`Lighthouse: ${r.runtimeError.code} ${r.runtimeError.message}`)
  const a = (id) => r.audits[id]?.numericValue ?? Number.NaN
  return {
    performance: Math.round((r.categories.performance.score ?? Number.NaN) * 100),
    fcp: a('first-contentful-paint'),
    lcp: a('largest-contentful-paint'),
    cls: a('cumulative-layout-shift'),
    tbt: a('total-blocking-time'),
    lcpElement: r.audits['largest-contentful-paint-element']?.details?.items?.[0]?.items?.[0]?.node?.snippet ?? '',
    shifts: (r.audits['layout-shifts']?.details?.items ?? []).map((i) =>
      `${(i.score ?? 0).toFixed(3)} ${i.node?.snippet ?? ''}`.slice(0, 140),
    ),
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

async function main() {
  const chrome = chromePath()
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-lighthouse-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  log(`starting npm start's server on ${base} (index in ${dataDir})…`)
  const server = await startServer(port, dataDir)
  const results = []
  mkdirSync(join(root, '.bench'), { recursive: true })
  try {
    if (INDEX) await indexEverything(base, log)
    const version = execFileSync('npx', ['-y', LIGHTHOUSE, '--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
    log(`Lighthouse ${version}, ${chrome}, ${RUNS} runs per page and preset`)
    for (const page of PAGES)
      for (const preset of PRESETS) {
        const runs = []
        for (let i = 0; i < RUNS; i++) {
          log(`${page.name} (${preset}), run ${i + 1}/${RUNS}`)
          // Lighthouse sometimes loses its own trace (NO_NAVSTART, "Please run Lighthouse again"):
          // such a run is taken again, twice at most; any other failure ends the whole run.
          for (let attempt = 1; ; attempt++) {
            try {
              // Each page and preset's last full report stays in .bench/ (the network chain, the trace's figures).
              runs.push(lighthouse(`${base}${page.path}`, preset, join(root, '.bench', `lighthouse-${page.name}-${preset}.json`), chrome))
              break
            } catch (err) {
              if (attempt >= 3 || !/run Lighthouse again/i.test(String(err.message))) throw err
              log('  Lighthouse lost its trace; the run is taken again')
            }
          }
        }
        results.push({ page: page.name, path: page.path, preset, lighthouse: version, runs })
      }
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`
  const lines = [['page', 'preset', 'performance', 'FCP', 'LCP', 'CLS', 'TBT', 'runs (performance)']]
  for (const r of results) {
    const m = (k) => median(r.runs.map((x) => x[k]))
    lines.push([
      r.page,
      r.preset,
      String(m('performance')),
      fmt(m('fcp')),
      fmt(m('lcp')),
      m('cls').toFixed(3),
      `${Math.round(m('tbt'))} ms`,
      r.runs.map((x) => x.performance).join(', '),
    ])
  }
  const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => l[i].length)))
  for (const l of lines) console.log(l.map((c, i) => c.padEnd(widths[i])).join('  '))
  console.log('\nmedians of the runs; LCP elements and layout shifts of each run are in .bench/lighthouse.json')
  writeFileSync(
    join(root, '.bench', 'lighthouse.json'),
    JSON.stringify({ date: new Date().toISOString(), runs: RUNS, index: INDEX, results }, null, 2),
  )
}

await main()
