// @vitest-environment happy-dom
import { cleanup, render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, expect, test, vi } from 'vitest'
import { readXlsx, serialToIso } from '../../contract/test-xlsx'
import { ExportButtons } from './export-buttons'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

/** The files the page hands the browser: each download's name and its bytes. */
function recordDownloads() {
  const blobs: Blob[] = []
  const names: string[] = []
  const make = URL.createObjectURL.bind(URL)
  vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
    blobs.push(b as Blob)
    return make(b)
  })
  const onClick = (e: Event) => {
    const a = e.target as HTMLAnchorElement
    if (a.download) names.push(a.download)
    e.preventDefault()
  }
  document.addEventListener('click', onClick, true)
  return {
    blobs,
    names,
    stop: () => {
      document.removeEventListener('click', onClick, true)
    },
  }
}

test('"Export Excel (.xlsx)" saves the rows on screen as a sheet: text ids and phones, date cells, numbers, formulas as text', async () => {
  const downloads = recordDownloads()
  const header = ['number', 'ordinal', 'date_utc', 'date_local (Europe/Paris)', 'party', 'body', 'system_id']
  const rows = [
    ['18323232323', 12, '2026-11-21T14:05:09Z', '2026-11-21 15:05:09', '+15551230000', '=HYPERLINK("http://x","y")', '200000000123'],
    ['18323232323', 11, '2026-11-20T08:00:00Z', '2026-11-20 09:00:00', '0044123', 'plain', '000000000042'],
  ]
  render(<ExportButtons nameParts={['history', '18323232323']} getData={() => ({ header, rows })} />)
  await userEvent.click(screen.getByRole('button', { name: 'Export Excel (.xlsx)' }))
  await waitFor(() => {
    expect(downloads.blobs).toHaveLength(1)
  })
  downloads.stop()
  expect(downloads.names[0]).toMatch(/^switchboard-history-18323232323-\d{4}-\d{2}-\d{2}\.xlsx$/)
  expect(downloads.blobs[0]!.type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
  const sheet = readXlsx(new Uint8Array(await downloads.blobs[0]!.arrayBuffer()))
  expect(sheet.frozenHeader).toBe(true)
  expect(sheet.rows.map((r) => r.length)).toEqual([7, 7, 7])
  expect(sheet.rows[0]!.map((c) => c.value)).toEqual(header)
  const [number, ordinal, utc, local, party, body, id] = sheet.rows[1]!
  expect([number!.kind, number!.value]).toEqual(['string', '18323232323'])
  expect([ordinal!.kind, ordinal!.value]).toEqual(['number', '12'])
  expect([utc!.kind, sheet.formats[utc!.style], serialToIso(utc!.value)]).toEqual([
    'date',
    'yyyy-mm-dd hh:mm:ss',
    '2026-11-21T14:05:09.000Z',
  ])
  // The local column holds the local clock as written, as a date too.
  expect([local!.kind, serialToIso(local!.value)]).toEqual(['date', '2026-11-21T15:05:09.000Z'])
  expect([party!.kind, party!.value]).toEqual(['string', '+15551230000'])
  expect([body!.kind, body!.value]).toEqual(['string', `'=HYPERLINK("http://x","y")`])
  expect([id!.kind, id!.value]).toEqual(['string', '200000000123'])
  expect(sheet.rows[2]![4]!.value).toBe('0044123')
  expect(sheet.rows[2]![6]!.value).toBe('000000000042')
})

test('the CSV and JSON buttons still save their files, beside the new one', async () => {
  const downloads = recordDownloads()
  render(<ExportButtons nameParts={['numbers']} getData={() => ({ header: ['number'], rows: [['18323232323']] })} />)
  await userEvent.click(screen.getByRole('button', { name: 'Export CSV' }))
  await userEvent.click(screen.getByRole('button', { name: 'Export JSON' }))
  await waitFor(() => {
    expect(downloads.blobs).toHaveLength(2)
  })
  downloads.stop()
  expect(downloads.names.map((n) => n.replace(/\d{4}-\d{2}-\d{2}/, 'DAY'))).toEqual([
    'switchboard-numbers-DAY.csv',
    'switchboard-numbers-DAY.json',
  ])
  expect(await downloads.blobs[0]!.text()).toBe('\uFEFFnumber\r\n18323232323\r\n')
})
