import { ProxyError } from '../../errors.ts'
import { PageError, parsePage, type Page } from '../parse.ts'
import { sleep } from './limiter.ts'
import { stopped, type Job, type Result, type Stop } from './types.ts'

/** One history page, positions start..end (1 = newest), with retries and back-off. */
export async function fetchPage(job: Job, start: number, end: number): Promise<Result<Page>> {
  const { ctx, signal } = job
  for (let attempt = 0; ; attempt++) {
    if (!(await ctx.limit(signal))) return stopped('aborted', 'stopped')
    ctx.stats.requests += 1
    const got = await request(job, start, end)
    if (got.ok) return got
    if (signal.aborted) return stopped('aborted', 'stopped')
    if (got.stop) return { ok: false, stop: got.stop }
    if (attempt >= ctx.maxRetries) return stopped('fail', `Stopped after ${attempt + 1} attempts: ${got.message}`)
    const delay = Math.min(got.waitMs ?? ctx.backoffMs * 2 ** attempt, 60_000)
    ctx.log(`index: ${job.number}: ${got.message} — retrying in ${delay} ms`)
    if (!(await sleep(delay, signal))) return stopped('aborted', 'stopped')
  }
}

type Attempt = { ok: true; value: Page } | { ok: false; stop?: Stop; message: string; waitMs?: number }

/** One request: a page, a refusal that retrying will not change (stop), or a failure worth a retry. */
async function request(job: Job, start: number, end: number): Promise<Attempt> {
  try {
    const res = await job.ctx.forwarder.forward(
      'smshistory',
      [
        ['number', job.number],
        ['tid', job.tid],
        ['history_start', String(start)],
        ['history_end', String(end)],
      ],
      job.signal,
    )
    // The forwarder parsed the page already (to look for a refusal in it): not again.
    return { ok: true, value: parsePage(res.body, res.json) }
  } catch (err) {
    return classify(err)
  }
}

function classify(err: unknown): Attempt {
  if (err instanceof ProxyError) {
    const { kind, message, retryAfterMs, cause } = err.body
    // A refusal will not pass by retrying: pause the number and say why.
    if (kind === 'unauthorized')
      return {
        ok: false,
        message,
        stop: { kind: 'pause', message: `Paused: ${message} Check API_SYS_ID and API_AUTH_TOKEN, then sync again.` },
      }
    if (kind === 'upstream_rejected') return { ok: false, message, stop: { kind: 'pause', message: `Paused: ${message}` } }
    if (kind === 'not_found')
      return { ok: false, message, stop: { kind: 'gone', message: `Paused: ${message}${cause ? ` The service said: ${cause}` : ''}` } }
    return { ok: false, message, ...(retryAfterMs !== undefined ? { waitMs: retryAfterMs } : {}) }
  }
  if (err instanceof PageError) return { ok: false, message: err.message }
  return { ok: false, message: err instanceof Error ? err.message : String(err) }
}

/** The whole result of a page fetch as a promise that never rejects (pages are asked for ahead). */
export const pageResult = (job: Job, start: number, end: number): Promise<Result<Page>> =>
  fetchPage(job, start, end).catch((err: unknown) =>
    stopped('fail', `The sync failed: ${err instanceof Error ? err.message : String(err)}`),
  )
