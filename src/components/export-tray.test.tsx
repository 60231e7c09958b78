// @vitest-environment happy-dom
import { act, cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { addJob, getJobs, removeJob, update, type ExportJob } from '../api/export-store.ts'
import { ExportTray } from './export-tray.tsx'

afterEach(() => {
  cleanup()
  for (const j of getJobs()) removeJob(j.id)
})

const job = (patch: Partial<ExportJob>): ExportJob =>
  ({
    id: 1,
    label: 'History of (832) 323-2323',
    fileName: 'switchboard-history-18323232323-all-60000-messages.csv',
    total: 60_000,
    rows: 0,
    bytes: 0,
    startedAt: '2026-11-24T12:00:00Z',
    secondsLeft: null,
    phase: 'running',
    ...patch,
  }) as ExportJob

describe('the export tray', () => {
  it('while a whole history waits for its sync, shows how far the sync has come and the time left, with Cancel', () => {
    addJob(job({ phase: 'waiting', indexed: 20_000, of: 60_000, secondsLeft: 90 }))
    render(<ExportTray />)
    const item = screen.getByRole('listitem', { name: 'Export: History of (832) 323-2323' })
    expect(item.textContent).toContain('Waiting for this number to be indexed: 20,000 of 60,000 messages so far, about 2 min left')
    const bar = within(item).getByRole('progressbar', { name: 'Indexing before History of (832) 323-2323' })
    expect(bar.getAttribute('value')).toBe('20000')
    expect(within(item).getByRole('button', { name: 'Cancel export' })).toBeTruthy()
    expect(within(item).queryByRole('button', { name: 'Dismiss' })).toBeNull()
  })

  it('while waiting for a slot on the server, says its place in line and when it starts, with Cancel, then shows progress', () => {
    addJob(job({ phase: 'queued', position: 2, startsInS: 38 }))
    render(<ExportTray />)
    const item = screen.getByRole('listitem', { name: 'Export: History of (832) 323-2323' })
    expect(item.textContent).toContain('Queued — 2nd in line, starts in about 40 s.')
    // No bar while it waits: nothing is being written yet.
    expect(within(item).queryByRole('progressbar')).toBeNull()
    expect(within(item).getByRole('button', { name: 'Cancel export' })).toBeTruthy()
    expect(within(item).queryByRole('button', { name: 'Dismiss' })).toBeNull()
    act(() => {
      update(1, { phase: 'queued', position: 1, startsInS: null })
    })
    expect(item.textContent).toContain('Queued — 1st in line, starts when an export ahead of it ends.')
    act(() => {
      within(screen.getByRole('region', { name: 'Exports' }))
        .getByRole('button', { name: 'Hide exports' })
        .click()
    })
    expect(screen.getByRole('heading').textContent).toBe('Exports · 1 queued')
    act(() => {
      screen.getByRole('button', { name: 'Show exports' }).click()
      update(1, { phase: 'running', rows: 1_000, secondsLeft: null })
    })
    expect(screen.getByText('1,000 of 60,000 rows written · 0 B')).toBeTruthy()
    expect(screen.getByRole('progressbar', { name: 'Progress of History of (832) 323-2323' })).toBeTruthy()
  })

  it('while streaming, shows rows of the total, the size so far and the time left', () => {
    addJob(job({ rows: 12_000, bytes: 3_400_000, secondsLeft: 240 }))
    render(<ExportTray />)
    expect(screen.getByText('12,000 of 60,000 rows written · 3.4 MB · about 4 min left')).toBeTruthy()
    act(() => {
      update(1, { phase: 'saved', rows: 60_000, bytes: 17_000_000, secondsLeft: 0 })
    })
    expect(screen.getByRole('status').textContent).toBe(
      "Saved 60,000 rows (17 MB) to your browser's downloads as switchboard-history-18323232323-all-60000-messages.csv.",
    )
  })

  it('says who stopped an export, and why one failed, in the one error wording', () => {
    addJob(job({ rows: 12_000, phase: 'cancelled', by: 'you' }))
    addJob(job({ id: 2, rows: 3_000, phase: 'cancelled', by: 'browser' }))
    addJob(job({ id: 3, rows: 0, phase: 'failed', reason: 'The messaging service took too long to answer: busy' }))
    render(<ExportTray />)
    const texts = screen.getAllByRole('status').map((s) => s.textContent)
    expect(texts).toEqual([
      'Cancelled after 12,000 rows. The download stopped unfinished: no complete file was saved.',
      'The browser stopped the download after 3,000 rows (cancelled in its downloads list, or the connection dropped). No complete file was saved.',
      'Stopped after 0 rows. The messaging service took too long to answer: busy',
    ])
    expect(screen.queryByRole('button', { name: 'Cancel export' })).toBeNull()
    expect(screen.getAllByRole('button', { name: 'Dismiss' })).toHaveLength(3)
  })

  it('folds to one line saying how many are running, out of the way of the table, and opens again', () => {
    addJob(job({ rows: 12_000, bytes: 3_400_000, secondsLeft: 240 }))
    render(<ExportTray />)
    const tray = screen.getByRole('region', { name: 'Exports' })
    act(() => {
      within(tray).getByRole('button', { name: 'Hide exports' }).click()
    })
    expect(screen.queryByRole('listitem')).toBeNull()
    expect(within(tray).getByRole('heading').textContent).toBe('Exports · 1 running')
    const show = within(tray).getByRole('button', { name: 'Show exports' })
    expect(show.getAttribute('aria-expanded')).toBe('false')
    act(() => {
      show.click()
    })
    expect(screen.getByRole('listitem', { name: 'Export: History of (832) 323-2323' })).toBeTruthy()
  })
})
