// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cancelExport, startExport, timeLeft } from './export-jobs'
import { getJobs, removeJob } from './export-store'

describe("an export's time left", () => {
  it('goes by the rate rows have come in so far', () => {
    // 12,000 rows in 4 s: 3,000 a second, 48,000 to go.
    expect(timeLeft(12_000, 48_000, 4_000)).toBe(16)
    expect(timeLeft(60_000, 0, 20_000)).toBe(0)
  })
  it('claims nothing before there is a rate', () => {
    expect(timeLeft(0, 60_000, 5_000)).toBeNull()
    expect(timeLeft(500, 60_000, 200)).toBeNull()
  })
})

describe('an export waiting for a slot on the server', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
    for (const j of getJobs()) removeJob(j.id)
  })

  /** The server's progress records in turn (the last one repeats), and every request the job made. */
  function serve(records: Array<Record<string, unknown>>) {
    const asked: Array<{ url: string; method: string; body: string }> = []
    let k = 0
    vi.stubGlobal(
      'fetch',
      vi.fn((url: string, init: RequestInit) => {
        asked.push({ url, method: init.method ?? 'GET', body: typeof init.body === 'string' ? init.body : '' })
        const base = { job: 'x', rows: 0, bytes: 0, total: null, fileName: null, startedAt: '2026-11-24T12:00:00Z' }
        const record = { ...base, ...(records[Math.min(k++, records.length - 1)] ?? {}) }
        return Promise.resolve(new Response(JSON.stringify(record), { status: 200, headers: { 'content-type': 'application/json' } }))
      }),
    )
    return asked
  }
  const start = () =>
    startExport({ path: '/api/index/export', params: { numbers: '18323232323' }, label: 'History', fileName: 'h.csv', total: 3000 })

  it('follows its place in line, then its progress, to the end', async () => {
    vi.useFakeTimers()
    serve([
      { state: 'queued', queue: { position: 2, startsInS: 40 } },
      { state: 'queued', queue: { position: 1, startsInS: null } },
      { state: 'running', rows: 1000, total: 3000 },
      { state: 'done', rows: 3000, total: 3000, bytes: 9000, fileName: 'h-3000.csv' },
    ])
    const id = start()
    const job = () => getJobs().find((j) => j.id === id)
    await vi.advanceTimersByTimeAsync(750)
    expect(job()).toMatchObject({ phase: 'queued', position: 2, startsInS: 40 })
    await vi.advanceTimersByTimeAsync(700)
    expect(job()).toMatchObject({ phase: 'queued', position: 1, startsInS: null })
    await vi.advanceTimersByTimeAsync(700)
    expect(job()).toMatchObject({ phase: 'running', rows: 1000 })
    await vi.advanceTimersByTimeAsync(700)
    expect(job()).toMatchObject({ phase: 'saved', rows: 3000, fileName: 'h-3000.csv' })
  })

  it('asks the server to cancel it while it waits, and follows the record to cancelled', async () => {
    vi.useFakeTimers()
    serve([{ state: 'queued', queue: { position: 1, startsInS: 10 } }])
    const id = start()
    await vi.advanceTimersByTimeAsync(750)
    expect(getJobs().find((j) => j.id === id)?.phase).toBe('queued')
    const asked = serve([{ state: 'cancelled', cancelledBy: 'you' }])
    cancelExport(id)
    await vi.advanceTimersByTimeAsync(750)
    expect(asked[0]).toMatchObject({ method: 'POST', url: expect.stringContaining('/api/index/export/cancel') as unknown })
    expect(getJobs().find((j) => j.id === id)).toMatchObject({ phase: 'cancelled', by: 'you' })
  })
})
