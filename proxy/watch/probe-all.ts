import type { Db } from '../db/types.ts'
import { checkUrl, type CheckResult, type ProbeOptions } from './probe.ts'
import { recordCheck } from './record-check.ts'
import type { WatchFinding } from './types.ts'

/**
 * One round of checks: every distinct callback URL the last listing showed (a URL shared by a
 * thousand numbers is checked once), `concurrency` at a time, each bounded by the probe's own
 * timeout, so a round of N URLs takes at most about N / concurrency timeouts.
 */

export async function callbackUrls(db: Db): Promise<string[]> {
  const r = await db.query<{ url: string }>(
    `SELECT DISTINCT url FROM (SELECT webhook AS url FROM watch_state UNION SELECT dlr FROM watch_state) u WHERE url <> '' ORDER BY url`,
  )
  return r.rows.map((x) => x.url)
}

export interface RoundResult {
  checked: number
  results: CheckResult[]
  findings: WatchFinding[]
}

export interface RoundOptions extends ProbeOptions {
  concurrency: number
  urls?: string[]
  /** How one URL is checked (the watch's checks thread); checkUrl on this thread by default. */
  check?: (url: string) => Promise<CheckResult>
}

export async function probeAll(db: Db, opts: RoundOptions): Promise<RoundResult> {
  const urls = opts.urls ?? (await callbackUrls(db))
  const results: CheckResult[] = []
  const findings: WatchFinding[] = []
  let next = 0
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++]!
      const r = await (opts.check ? opts.check(url) : checkUrl(url, opts))
      results.push(r)
      findings.push(...(await recordCheck(db, r)))
    }
  }
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, urls.length) }, worker))
  return { checked: urls.length, results, findings }
}
