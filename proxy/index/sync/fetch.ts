import { ProxyError } from '../../errors.ts'
import { identity, newestIndexOf, PageError, parsePage, type Page, type PageMeta, type PageRecord } from '../parse.ts'
import { sleep } from '../../kernel/pace.ts'
import { textAt } from './page-protocol.ts'
import { stopped, type Job, type Result, type Stop } from './types.ts'

/** One history page, positions start..end (1 = newest), with retries and back-off. */
export async function fetchPage(job: Job, start: number, end: number): Promise<Result<Page>> {
  const got = await withRetries(job, () => request(job, start, end))
  if (got.ok) learnCap(job, start, end, got.value.records.length, got.value.total)
  return got
}

/** Fewer records than this in a short answer say nothing of a limit (one cut short, say). */
const MIN_LEARNED_CAP = 10

/**
 * A full answer shorter than asked, short of the history's end, is the upstream's own page limit:
 * the sync pages by it from then on. Asking for more each time, a catch-up found its stored
 * newest message outside every window and made 2,012 requests for 300 messages.
 */
function learnCap(job: Job, start: number, end: number, count: number, total: number): void {
  const asked = end - start + 1
  if (count >= asked || start + count - 1 >= total || count < MIN_LEARNED_CAP || count >= job.ctx.pageCap) return
  job.ctx.log(`index: the messaging service served ${count} records where ${asked} were asked: paging by ${count} from now on`)
  job.ctx.pageCap = count
}

/**
 * A page as the full walk reads it: parsed on this thread (`records`), or parsed and held by the
 * page worker (`held`, its id there), of which the walk sees only the envelope and each record's identity.
 */
export interface WalkPage extends PageMeta {
  count: number
  identityAt: (i: number) => string
  /** Where the envelope's newest message is in the page; -1 when it is not. */
  newestIndex: number
  records: PageRecord[] | null
  held: number | null
  /**
   * When the request that got this answer was sent, and when the answer came (performance.now()).
   * Pages asked for ahead can be served in any order: one sent before a page with a larger total
   * came back may carry an older, smaller total without the history having lost anything.
   */
  sentAt: number
  receivedAt: number
}

export const localPage = (page: Page): WalkPage => ({
  total: page.total,
  newestId: page.newestId,
  newestAt: page.newestAt,
  createdRaw: page.createdRaw,
  optin: page.optin,
  count: page.records.length,
  identityAt: (i) => identity(page.records[i]!),
  newestIndex: newestIndexOf(page),
  records: page.records,
  held: null,
  sentAt: 0,
  receivedAt: 0,
})

/** fetchPage for the full walk; through the page worker when `walk` names the walk there. */
export async function fetchWalkPage(job: Job, start: number, end: number, walk: string | null): Promise<Result<WalkPage>> {
  const got = await withRetries<WalkPage>(job, async () => {
    const sentAt = performance.now()
    const got = walk === null ? await request(job, start, end) : await requestHeld(job, start, end, walk)
    if (!got.ok) return got
    const value: WalkPage = 'identityAt' in got.value ? got.value : localPage(got.value)
    return { ok: true, value: { ...value, sentAt, receivedAt: performance.now() } }
  })
  if (got.ok) learnCap(job, start, end, got.value.count, got.value.total)
  return got
}

async function withRetries<T>(job: Job, once: () => Promise<Attempt<T>>): Promise<Result<T>> {
  const { ctx, signal } = job
  for (let attempt = 0; ; attempt++) {
    if (!(await ctx.limit(signal))) return stopped('aborted', 'stopped')
    ctx.stats.requests += 1
    const got = await once()
    if (got.ok) return got
    if (signal.aborted) return stopped('aborted', 'stopped')
    if (got.stop) return { ok: false, stop: got.stop }
    if (attempt >= ctx.maxRetries) return stopped('fail', `Stopped after ${attempt + 1} attempts: ${got.message}`)
    const delay = Math.min(got.waitMs ?? ctx.backoffMs * 2 ** attempt, 60_000)
    ctx.log(`index: ${job.number}: ${got.message} — retrying in ${delay} ms`)
    if (!(await sleep(delay, signal))) return stopped('aborted', 'stopped')
  }
}

/** A failed request: a refusal that retrying will not change (stop), or a failure worth a retry. */
type Failed = { ok: false; stop?: Stop; message: string; waitMs?: number }
type Attempt<T = Page> = { ok: true; value: T } | Failed

const historyFields = (job: Job, start: number, end: number): Array<[string, string]> => [
  ['number', job.upstream],
  ['tid', job.tid],
  ['history_start', String(start)],
  ['history_end', String(end)],
]

/** A refusal's words that say it is passing, not a verdict on the number. */
const PASSING = /\b(try again|temporar(y|ily)|internal (server )?error|(service )?unavailable|timed? ?out)\b/i

/** One request: a page, a refusal that retrying will not change (stop), or a failure worth a retry. */
async function request(job: Job, start: number, end: number): Promise<Attempt> {
  try {
    const res = await job.ctx.forwarder.forward('smshistory', historyFields(job, start, end), job.signal)
    // The forwarder parsed the page already (to look for a refusal in it): not again.
    return { ok: true, value: parsePage(res.body, res.json) }
  } catch (err) {
    return classify(err)
  }
}

/**
 * request, the page's bytes decoded and parsed by the page worker. Bytes that are not the spec's
 * success object are judged by the forwarder here, as request would have (a refusal stops or
 * retries the same way), and a page the worker cannot place fails as parsePage's would.
 */
async function requestHeld(job: Job, start: number, end: number, walk: string): Promise<Attempt<WalkPage>> {
  const fields = historyFields(job, start, end)
  const { forwarder, pages } = job.ctx
  try {
    const res = await forwarder.forwardBytes('smshistory', fields, job.signal)
    // res.body may move to the worker: from here on it is read only as the worker sends it back.
    const { id, parsed } = await pages.parse(walk, start, res.body, res.owned)
    if (parsed.kind === 'invalid') throw new PageError(parsed.message)
    if (parsed.kind === 'judge') {
      const b = parsed.bytes
      const judged = await forwarder.judge('smshistory', fields, Buffer.from(b.buffer, b.byteOffset, b.byteLength), res.status, job.signal)
      return { ok: true, value: localPage(parsePage(judged.body, judged.json)) }
    }
    const { meta, ids, newestIndex } = parsed
    return {
      ok: true,
      value: {
        ...meta,
        count: ids.ends.length,
        identityAt: (i) => textAt(ids, i),
        newestIndex,
        records: null,
        held: id,
        sentAt: 0,
        receivedAt: 0,
      },
    }
  } catch (err) {
    return classify(err)
  }
}

function classify(err: unknown): Failed {
  if (err instanceof ProxyError) {
    const { kind, message, retryAfterMs, cause } = err.body
    // A refusal will not pass by retrying: pause the number and say why.
    if (kind === 'unauthorized')
      return {
        ok: false,
        message,
        // The server's own words may already say which settings to check: said once.
        stop: {
          kind: 'pause',
          message: `Paused: ${message}${/API_SYS_ID/.test(message) ? ' Then sync again.' : ' Check API_SYS_ID and API_AUTH_TOKEN, then sync again.'}`,
        },
      }
    // A refusal whose words say it will pass ("Internal error, please try again later") is
    // retried, with the back-off, as a 5xx is; paused, it waited for a person.
    if (kind === 'upstream_rejected' && !PASSING.test(message))
      return { ok: false, message, stop: { kind: 'pause', message: `Paused: ${message}` } }
    if (kind === 'not_found')
      return { ok: false, message, stop: { kind: 'gone', message: `Paused: ${message}${cause ? ` The service said: ${cause}` : ''}` } }
    return { ok: false, message, ...(retryAfterMs !== undefined ? { waitMs: retryAfterMs } : {}) }
  }
  if (err instanceof PageError) return { ok: false, message: err.message }
  return { ok: false, message: err instanceof Error ? err.message : String(err) }
}

/** The whole result of a walk's page fetch as a promise that never rejects (pages are asked for ahead). */
export const pageResult = (job: Job, start: number, end: number, walk: string | null): Promise<Result<WalkPage>> =>
  fetchWalkPage(job, start, end, walk).catch((err: unknown) =>
    stopped('fail', `The sync failed: ${err instanceof Error ? err.message : String(err)}`),
  )
