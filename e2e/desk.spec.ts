import type { Locator, Page } from '@playwright/test'
import { costlyCharacters } from '../contract/desk/encoding-cost'
import { type DeskMessage, partyKey } from '../contract/desk/messages'
import { needsReplyQueue } from '../contract/desk/needs-reply'
import { optOutLedger } from '../contract/desk/opt-out-ledger'
import { quietHourSends } from '../contract/desk/quiet-hours'
import { segmentInfo } from '../contract/desk/segments'
import { statusCode } from '../proxy/index/parse'
import { DEMO_CREDENTIALS, makeAccount, messageAt, type NumberProfile } from '../proxy/simulator/dataset'
import { DESK_INDEX, DESK_PARTIES, UCS2_BODY } from '../proxy/simulator/desk-cases'
import { axeViolations } from './axe'
import { expect, test } from './fixtures'
import { appUrl, downloadText, indexNumber, parseCsv, pickNumber } from './helpers'

/**
 * The support desk's pages from a fresh start on the simulator: the demo number that carries the
 * scripted desk cases is indexed, and every count a page shows is worked out here from the
 * simulator's own messages with contract/desk's rules, never copied from what the page says.
 */

const account = makeAccount(DEMO_CREDENTIALS.sysId, DEMO_CREDENTIALS.authToken, 60)
const DESK = account.numbers[DESK_INDEX]!

type Msg = DeskMessage & { number: string; party: string; ordinal: number; body: string }

/** The number's history as the simulator generates it (seq 1 is the index's ordinal 1). */
function truth(p: NumberProfile): Msg[] {
  const out: Msg[] = []
  for (let seq = 1; seq <= p.baseTotal; seq++) {
    const r = messageAt(p, seq, p.baseTotal, 'http://sim.invalid', 0)
    out.push({
      number: p.number,
      party: r.phone.replace(/\D/g, ''),
      direction: r.direction,
      date: `${r.GMTdate.replace(' ', 'T')}Z`,
      ordinal: seq,
      body: r.body,
      statusCode: statusCode(r.status),
    })
  }
  return out
}

const MESSAGES = truth(DESK)
const fmt = (digits: string) => {
  const d = partyKey(digits)
  return `(${d.slice(1, 4)}) ${d.slice(4, 7)}-${d.slice(7)}`
}
/** Parties marked handled by an earlier test of this file (the index, and so the desk, persists for the run). */
const handled = new Map<string, Date>()
const queueNow = () =>
  needsReplyQueue(MESSAGES, 15 * 60_000, Date.now(), new Map([...handled].map(([party, at]) => [`${partyKey(DESK.number)}|${party}`, at])))

/**
 * The quiet-hours day chart's bars, from the rule: one per customer-local day from the first
 * quiet-hour send to the last (days between with none count as bars of 0), and the days with any.
 */
function quietDays(): { span: number; withSends: number } {
  const days = [...new Set(quietHourSends(MESSAGES).map((q) => q.local.day))].sort()
  const first = Date.parse(`${days[0]}T00:00:00Z`)
  const last = Date.parse(`${days[days.length - 1]}T00:00:00Z`)
  return { span: Math.round((last - first) / 86_400_000) + 1, withSends: days.length }
}

/** The day chart of the quiet-hours page, drawn: its canvas shows and uPlot has drawn `points` days. */
async function quietChartDrawn(page: Page) {
  const { span, withSends } = quietDays()
  expect(withSends).toBeGreaterThan(1)
  const chart = page.getByRole('img', { name: new RegExp(`^Bar chart of quiet-hour sends per customer-local day .* ${span} days\\.`) })
  await expect(chart.locator('canvas')).toBeVisible()
  await expect(chart).toHaveAttribute('data-points', String(span))
  // The table below it holds the same figures: every day of the chart, those without a send as 0.
  const rows = page.getByRole('table', { name: /Quiet-hour sends by day/ }).locator('tbody tr')
  await expect(rows).toHaveCount(span)
  expect(span - withSends, 'days with no quiet-hour send between the first and the last').toBeGreaterThan(0)
  await expect(rows.filter({ has: page.locator('td:nth-child(2)', { hasText: /^0$/ }) })).toHaveCount(span - withSends)
  const box = (await chart.boundingBox())!
  expect(box.width).toBeGreaterThan(250)
  expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width)
}

/** The browser's own zone: the one "local time" means, which the desk's exports name. */
const browserZone = (page: Page) => page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)

/** A row shown as a card on a phone: each cell starts with its column's name and sits within the screen. */
async function cellsOnScreen(row: Locator, names: string[]) {
  const cells = row.getByRole('cell')
  await expect(cells).toHaveCount(names.length)
  const width = row.page().viewportSize()!.width
  for (const [i, name] of names.entries()) {
    const cell = cells.nth(i)
    await expect(cell.locator('span').first()).toHaveText(name)
    await cell.scrollIntoViewIfNeeded()
    const b = (await cell.boundingBox())!
    expect(b.x, name).toBeGreaterThanOrEqual(0)
    expect(b.x + b.width, name).toBeLessThanOrEqual(width)
  }
}

/** The page never scrolls sideways: wide tables scroll inside their own region. */
async function noPageScroll(page: Page) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }))
  expect(scroll).toBeLessThanOrEqual(width)
}

test.describe('the support desk', () => {
  test.describe.configure({ mode: 'serial' })
  test.beforeAll(async () => {
    test.setTimeout(120_000)
    await indexNumber(DESK, 100_000)
  })

  test('desktop: needs reply, mark handled, export, a customer, opt-outs with sends after, quiet hours and segments', async ({ page }) => {
    test.setTimeout(90_000)
    await page.setViewportSize({ width: 1400, height: 900 })
    const expected = queueNow()
    expect(expected.length, 'the scripted cases leave customers waiting').toBeGreaterThanOrEqual(3)

    await page.goto('/')
    const nav = page.getByRole('navigation', { name: 'Main' })
    // The count in the navigation covers every indexed number, so at least this number's queue.
    const navLink = nav.getByRole('link', { name: /^Needs reply/ })
    await expect(navLink).toContainText(/\d/)
    const navCount = Number((await navLink.locator('span').first().innerText()).replace(/\D/g, ''))
    expect(navCount).toBeGreaterThanOrEqual(expected.length)
    await navLink.click()
    await expect(page.getByRole('heading', { name: 'Needs reply', level: 1 })).toBeVisible()
    await pickNumber(page, DESK.number)
    await expect(page).toHaveURL(new RegExp(`number=${DESK.number}`))
    await expect(page.getByRole('status').filter({ hasText: /waiting/ })).toHaveText(
      new RegExp(`^${expected.length} customers are waiting on`),
    )
    const table = page.getByRole('table', { name: /Customers waiting for a reply/ })
    const rows = table.locator('tbody tr')
    await expect(rows).toHaveCount(expected.length)
    // Longest wait first, each with its last inbound text, as text.
    // Whoever opted out after asking says not to text them (the rules' optedOut), and only they.
    const doNotText = /Opted out: do not text/
    expect(expected.filter((e) => e.optedOut).length, 'the scripted cases hold a question, then STOP').toBeGreaterThanOrEqual(1)
    for (const [i, e] of expected.entries()) {
      await expect(rows.nth(i)).toContainText(fmt(e.party))
      await expect(rows.nth(i)).toContainText(e.lastInbound!.body)
      if (e.optedOut) await expect(rows.nth(i)).toContainText(doNotText)
      else await expect(rows.nth(i)).not.toContainText(doNotText)
    }
    await page.screenshot({ path: '/tmp/desk-needs-reply-1400.png', fullPage: true })
    expect(await axeViolations(page)).toEqual([])

    // On paper: the queue whole, in the page's width, without the controls (the Mark handled
    // column was cut at the right edge, the filters printed).
    const viewport = page.viewportSize()!
    await page.setViewportSize({ width: 700, height: viewport.height }) // A4's width less 12 mm margins, at 96 dpi
    await page.emulateMedia({ media: 'print' })
    await expect(table.getByRole('button', { name: /^Mark handled: / }).first()).toBeHidden()
    await expect(page.getByRole('combobox', { name: 'Number' })).toBeHidden()
    // The paper says what it is and when: waiting times grow, so the time printed matters.
    const printed = page.locator('header').filter({ hasText: 'Printed:' })
    await expect(printed).toBeVisible()
    await expect(printed).toContainText(`Account number: ${fmt(DESK.number)}`)
    await expect(printed).toContainText('Waiting times as at the time printed')
    await expect(printed).toContainText('Time zone:')
    const region = page.getByRole('region', { name: /Needs-reply queue/ })
    const [tableWidth, regionWidth] = await Promise.all([table.evaluate((el) => el.scrollWidth), region.evaluate((el) => el.clientWidth)])
    expect(tableWidth).toBeLessThanOrEqual(regionWidth)
    await page.emulateMedia({ media: 'screen' })
    await page.setViewportSize(viewport)

    // Export: one row per waiting customer, in the same order.
    const { name, text } = await downloadText(page, () => page.getByRole('button', { name: 'Export CSV' }).click())
    // The export tray follows it as it follows the index's exports, under the server's file name.
    const tray = page.getByRole('region', { name: 'Exports' })
    await expect(tray).toContainText(`Saved ${expected.length} rows`)
    await expect(tray).toContainText(name)
    // contract/file-name.ts: the report, the number, the row count, and the day if it fits in 60 characters.
    expect(name).toMatch(new RegExp(`^switchboard-needs-reply-${DESK.number}-${expected.length}-rows(-\\d{4}-\\d{2}-\\d{2})?\\.csv$`))
    const csv = parseCsv(text)
    expect(csv[0]).toEqual([
      'customer',
      'number',
      'waiting_since',
      'waited_minutes',
      'unanswered',
      'last_inbound_at',
      'last_inbound_text',
      'opted_out',
      // The page's zone (local time, the browser's), as the page shows the dates.
      `waiting_since_local (${await browserZone(page)})`,
      `last_inbound_at_local (${await browserZone(page)})`,
    ])
    expect(csv.slice(1).map((r) => r[0])).toEqual(expected.map((e) => e.party))

    // Mark handled (a phone call): who and when, and the customer leaves the queue.
    const first = expected[0]!
    await page.getByRole('button', { name: `Mark handled: ${fmt(first.party)} on ${fmt(DESK.number)}` }).click()
    await expect(page.getByRole('status').filter({ hasText: /^Marked handled/ })).toContainText('by you at')
    handled.set(first.party, new Date())
    // Handled up to the message the queue showed (its ordinal), not to the moment of the click:
    // the server's log entry names it.
    const entry = await page.evaluate(
      async () =>
        (
          (await (await fetch('/api/auth/access-log?action=needs-reply.handled&limit=1')).json()) as {
            entries: Array<{ details: unknown }>
          }
        ).entries[0],
    )
    expect(entry?.details).toMatchObject({ number: DESK.number, party: first.party, through: first.lastInbound!.ordinal })
    await expect(rows).toHaveCount(queueNow().length)
    expect(queueNow().length).toBe(expected.length - 1)
    // A mark made by mistake is undone from its confirmation, by keyboard: the customer is back.
    const undo = page
      .getByRole('status')
      .filter({ hasText: /^Marked handled/ })
      .getByRole('button', { name: 'Undo' })
    await undo.focus()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('status').filter({ hasText: /^Undone:/ })).toBeFocused()
    handled.delete(first.party)
    await expect(rows).toHaveCount(queueNow().length)
    expect(queueNow().length).toBe(expected.length)
    // Marked again, for what follows.
    await page.getByRole('button', { name: `Mark handled: ${fmt(first.party)} on ${fmt(DESK.number)}` }).click()
    await expect(page.getByRole('status').filter({ hasText: /^Marked handled/ })).toContainText('by you at')
    handled.set(first.party, new Date())
    await expect(rows).toHaveCount(queueNow().length)

    // The customer link of a waiting customer opens them across every number.
    const next = queueNow()[0]!
    await table.getByRole('link', { name: new RegExp(`^Customer ${escape(fmt(next.party))}`) }).click()
    await expect(page).toHaveURL(new RegExp(`/desk/customer\\?party=${next.party}`))
    await expect(page.getByRole('heading', { name: `Customer ${fmt(next.party)}`, level: 1 })).toBeVisible()
    const theirs = MESSAGES.filter((m) => partyKey(m.party) === next.party)
    const summary = page.locator('dl')
    await expect(summary.getByText('Messages from them').locator('..')).toContainText(
      String(theirs.filter((m) => m.direction === 'inbound').length),
    )
    await expect(summary.getByText('Messages to them').locator('..')).toContainText(
      String(theirs.filter((m) => m.direction === 'outbound').length),
    )
    await expect(summary.getByText('Waiting for a reply').locator('..')).toContainText(/Yes, for/)
    expect(await axeViolations(page)).toEqual([])
    // The threads shown, as a file: one row per number, the counts worked out here from the messages.
    const threadsOut = await downloadText(page, () => page.getByRole('button', { name: 'Export CSV' }).click())
    expect(threadsOut.name).toMatch(new RegExp(`^switchboard-customer-${next.party}-1-threads`))
    const threadsCsv = parseCsv(threadsOut.text)
    expect(threadsCsv[0]!.slice(0, 7)).toEqual(['customer', 'number', 'first_contact', 'last_contact', 'from_them', 'to_them', 'failed'])
    expect(threadsCsv[0]!.at(-1)).toBe(`waiting_since_local (${await browserZone(page)})`)
    expect(threadsCsv.slice(1).map((r) => [r[0], r[1], Number(r[4]), Number(r[5])])).toEqual([
      [
        next.party,
        DESK.number,
        theirs.filter((m) => m.direction === 'inbound').length,
        theirs.filter((m) => m.direction === 'outbound').length,
      ],
    ])
    await page.getByRole('link', { name: `Thread on ${fmt(DESK.number)}` }).click()
    await expect(page).toHaveURL(/\/thread\?/)
    await expect(page.getByRole('heading', { name: `Thread between ${fmt(DESK.number)} and ${fmt(next.party)}` })).toBeVisible()
    // And back from the thread's header to the customer.
    await page.getByRole('link', { name: `Everything about ${fmt(next.party)}, across every number` }).click()
    await expect(page.getByRole('heading', { name: `Customer ${fmt(next.party)}`, level: 1 })).toBeVisible()

    // Opt-outs and the key report, sends after opt-out, from the ledger rule over the same messages.
    const ledger = optOutLedger(MESSAGES)
    const sent = ledger.flatMap((e) => e.sentAfter)
    expect(sent.length).toBeGreaterThan(0)
    await nav.getByRole('link', { name: 'Desk' }).click()
    await expect(page.getByRole('heading', { name: 'Opt-outs', level: 1 })).toBeVisible()
    await expect(page.getByText(/not legal advice/i).first()).toBeVisible()
    await pickNumber(page, DESK.number)
    await expect(page.getByRole('status').filter({ hasText: /sent after opt-out$/ })).toHaveText(
      `${sent.length} ${sent.length === 1 ? 'message' : 'messages'} sent after opt-out`,
    )
    await expect(page.getByRole('status').filter({ hasText: /still opted out/ })).toHaveText(
      `${ledger.filter((e) => e.optedOut).length} still opted out, ${ledger.filter((e) => !e.optedOut).length} opted back in on ${fmt(DESK.number)}.`,
    )
    // Each opt-out's history in words (the server's 'opted-out' was once shown as it came).
    const ledgerTable = page.getByRole('table', { name: /^Opt-out state per number and customer/ })
    await expect(ledgerTable.getByText(/^Opted out, /)).toHaveCount(
      ledger.reduce((n, e) => n + e.history.filter((h) => h.state === 'opted-out').length, 0),
    )
    const evidence = page.getByRole('table', { name: /Messages sent after opt-out/ })
    await expect(evidence.locator('tbody tr')).toHaveCount(sent.length)
    for (const s of sent) await expect(evidence).toContainText(s.message.body)
    await expect(evidence.getByText('refused by the carrier')).toHaveCount(sent.filter((s) => s.failed).length)
    const out = await downloadText(page, () => page.getByRole('button', { name: 'Export CSV: every send after opt-out' }).click())
    expect(out.name).toMatch(
      new RegExp(`^switchboard-sent-after-opt-out-${DESK.number}-${sent.length}-rows(-\\d{4}-\\d{2}-\\d{2})?\\.csv$`),
    )
    const evidenceCsv = parseCsv(out.text)
    expect(
      evidenceCsv
        .slice(1)
        .map((r) => r[5])
        .sort(),
    ).toEqual(sent.map((s) => s.message.body).sort())
    // Both messages: each send beside the opt-out it came after.
    expect(
      evidenceCsv
        .slice(1)
        .map((r) => `${r[3]} → ${r[5]}`)
        .sort(),
    ).toEqual(sent.map((s) => `${s.optOut.body} → ${s.message.body}`).sort())
    const ledgerOut = await downloadText(page, () => page.getByRole('button', { name: 'Export CSV: the opt-out ledger' }).click())
    expect(ledgerOut.name).toMatch(
      new RegExp(`^switchboard-opt-outs-${DESK.number}-all-${ledger.length}-rows(-\\d{4}-\\d{2}-\\d{2})?\\.csv$`),
    )
    const ledgerCsv = parseCsv(ledgerOut.text)
    expect(ledgerCsv[0]).toEqual([
      'number',
      'customer',
      'state',
      'opted_out_since',
      'sent_after_opt_out',
      'history',
      `opted_out_since_local (${await browserZone(page)})`,
    ])
    expect(
      ledgerCsv
        .slice(1)
        .map((r) => `${r[1]} ${r[2]}`)
        .sort(),
    ).toEqual(ledger.map((e) => `${e.party} ${e.optedOut ? 'opted-out' : 'opted-in'}`).sort())
    // A ledger count, pressed from the keyboard, shows that customer's evidence and takes focus there;
    // "Show every customer" brings the whole list back with focus kept on the evidence.
    const withSends = ledger.find((e) => e.sentAfter.length > 0)!
    const countButton = ledgerTable.getByRole('button', { name: new RegExp(`sent to ${escape(fmt(withSends.party))} after opting out`) })
    await countButton.focus()
    await page.keyboard.press('Enter')
    const evidenceHeading = page.getByRole('heading', { name: `Sent after opt-out to ${fmt(withSends.party)}`, level: 2 })
    await expect(evidenceHeading).toBeFocused()
    await expect(evidence.locator('tbody tr')).toHaveCount(withSends.sentAfter.length)
    // On paper: a header naming the number, the customer and the time printed; none of the controls;
    // both tables in the page's width (the ledger's last column ran past the sheet's edge).
    const shown = page.viewportSize()!
    await page.setViewportSize({ width: 700, height: shown.height })
    await page.emulateMedia({ media: 'print' })
    const paper = page.locator('header').filter({ hasText: 'Printed:' })
    await expect(paper).toContainText(`Other party: ${fmt(withSends.party)}`)
    await expect(paper).toContainText(`Account number: ${fmt(DESK.number)}`)
    for (const control of [page.getByRole('button', { name: 'Show every customer' }), page.getByRole('combobox', { name: 'State now' })])
      await expect(control).toBeHidden()
    for (const name of ['Opt-out state (scrolls sideways)', 'Sent after opt-out (scrolls sideways)']) {
      const region = page.getByRole('region', { name })
      const widths = await region.evaluate((el) => [el.querySelector('table')!.scrollWidth, el.clientWidth])
      expect(widths[0], name).toBeLessThanOrEqual(widths[1]!)
    }
    await page.emulateMedia({ media: 'screen' })
    await page.setViewportSize(shown)
    await page.getByRole('button', { name: 'Show every customer' }).click()
    await expect(page.getByRole('heading', { name: 'Sent after opt-out', exact: true, level: 2 })).toBeFocused()
    await expect(evidence.locator('tbody tr')).toHaveCount(sent.length)
    await page.screenshot({ path: '/tmp/desk-opt-outs-1400.png', fullPage: true })
    expect(await axeViolations(page)).toEqual([])

    // The customer box takes any format: the STOP-then-promotion customer, typed internationally.
    await page.getByRole('navigation', { name: 'Support desk' }).getByRole('link', { name: 'Customer' }).click()
    const p = DESK_PARTIES.stopThenPromo
    await page.getByRole('searchbox', { name: /Customer’s number/ }).fill(`+1 ${p.slice(1, 4)}.${p.slice(4, 7)}.${p.slice(7)}`)
    await page.getByRole('button', { name: 'Open customer' }).click()
    await expect(page).toHaveURL(new RegExp(`party=${p}`))
    await expect(page.locator('dl').getByText('Opt-out').locator('..')).toContainText(`Opted out on ${fmt(DESK.number)}`)
    await page.getByRole('searchbox', { name: /Customer’s number/ }).fill('not a number')
    await page.getByRole('button', { name: 'Open customer' }).click()
    await expect(page.getByRole('alert')).toHaveText(/^Customer’s number may hold only digits.* Still showing /)

    // Quiet hours: the rule's own count over the number's sends.
    const quiet = quietHourSends(MESSAGES)
    await page.goto(`/desk/quiet-hours?number=${DESK.number}`)
    await expect(page.getByText(/number portability/)).toBeVisible()
    await expect(page.getByRole('status').filter({ hasText: /in quiet hours/ })).toContainText(
      `${n(quiet.length)} of ${n(MESSAGES.filter((m) => m.direction === 'outbound').length)} sends`,
    )
    await quietChartDrawn(page)
    // Each send says the hour where its customer is, the one that made it a quiet-hour send.
    const sends = page.getByRole('table', { name: /Quiet-hour sends, newest first/ })
    const times = await sends.locator('tbody tr td:nth-child(2)').allTextContents()
    expect(times.length).toBeGreaterThan(0)
    for (const t of times) {
      const m = /^[A-Z][a-z]{2} \d{1,2}, (\d{1,2}):\d{2}\s(AM|PM) [A-Z]{2,5}$/.exec(t)
      expect(m, t).not.toBeNull()
      const hour = (Number(m![1]) % 12) + (m![2] === 'PM' ? 12 : 0)
      expect(hour < 8 || hour >= 21, `${t} is outside 8:00–21:00`).toBe(true)
    }
    await page.screenshot({ path: '/tmp/desk-quiet-1400.png', fullPage: true })
    expect(await axeViolations(page)).toEqual([])
    // Export, from the server: every quiet-hour send, newest first, each on its customer's local day.
    const quietOut = await downloadText(page, () => page.getByRole('button', { name: 'Export CSV' }).click())
    expect(quietOut.name).toMatch(new RegExp(`^switchboard-quiet-hours-${DESK.number}-${quiet.length}-rows(-\\d{4}-\\d{2}-\\d{2})?\\.csv$`))
    const quietCsv = parseCsv(quietOut.text)
    expect(quietCsv[0]).toEqual([
      'number',
      'customer',
      'sent_at',
      'customer_local_day',
      'customer_local_time',
      'customer_zone',
      'text',
      'ordinal',
      `sent_at_local (${await browserZone(page)})`,
    ])
    const newestFirst = [...quiet].sort((a, b) => (b.message as Msg).ordinal - (a.message as Msg).ordinal)
    expect(quietCsv.slice(1).map((r) => [r[1], r[3], r[5], Number(r[7])])).toEqual(
      newestFirst.map((q) => [(q.message as Msg).party, q.local.day, q.local.zone, (q.message as Msg).ordinal]),
    )

    // Segments: the curly apostrophe of the scripted UCS-2 message is among the costly characters.
    const info = segmentInfo(UCS2_BODY)
    expect(info.ucs2Chars).toEqual(['’'])
    await page.goto(`/desk/segments?number=${DESK.number}`)
    const costly = page.getByRole('region', { name: /Costliest characters/ }).getByRole('table')
    await expect(costly.locator('tbody tr').filter({ hasText: 'U+2019' })).toBeVisible()
    const costlyChars = costlyCharacters(MESSAGES.map((m) => m.body))
      .slice(0, 20)
      .filter((c) => c.extraSegments > 0)
    await expect(costly.locator('tbody tr')).toHaveCount(costlyChars.length)
    const total = MESSAGES.reduce((a, m) => a + segmentInfo(m.body).segments, 0)
    await expect(page.getByRole('status').filter({ hasText: /segments;/ })).toContainText(
      `${n(MESSAGES.length)} messages, ${n(total)} segments`,
    )
    // Its file holds the days as the table shows them, newest first (it was oldest first).
    const daysTable = page.getByRole('table', { name: /Segments per day/ })
    const shownDays = (await daysTable.locator('tbody tr th, tbody tr td:first-child').allInnerTexts()).map((t) => t.trim())
    const segmentsOut = await downloadText(page, () =>
      page
        .getByRole('region', { name: /Segments per day/ })
        .locator('..')
        .getByRole('button', { name: 'Export CSV' })
        .click(),
    )
    const segmentDays = parseCsv(segmentsOut.text)
      .slice(1)
      .map((r) => r[0])
    expect(segmentDays.length).toBeGreaterThan(1)
    expect(segmentDays).toEqual([...segmentDays].sort().reverse())
    expect(segmentDays[0]).toBe(shownDays[0])
    await page.screenshot({ path: '/tmp/desk-segments-1400.png', fullPage: true })
    expect(await axeViolations(page)).toEqual([])

    // The message page says the same of the one message, naming the character.
    const ucs2 = MESSAGES.find((m) => m.body === UCS2_BODY)!
    await page.goto(`/numbers/${DESK.number}/messages/${ucs2.ordinal}?tid=${DESK.tid}`)
    const encoding = page.getByText('Encoding', { exact: true }).locator('..')
    await expect(encoding).toContainText(`UCS-2, ${info.segments} segments`)
    await expect(encoding).toContainText('U+2019')
    await page.getByRole('link', { name: 'Everything about this customer' }).click()
    await expect(page.getByRole('heading', { name: `Customer ${fmt(ucs2.party)}`, level: 1 })).toBeVisible()
  })

  test('phone: the queue, opt-outs and a customer by keyboard, at 390 px without sideways page scroll', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    const expected = queueNow()
    await page.goto(`/desk/needs-reply?number=${DESK.number}`)
    await expect(page.getByRole('status').filter({ hasText: /waiting/ })).toHaveText(
      new RegExp(`^${expected.length} ${expected.length === 1 ? 'customer is' : 'customers are'} waiting`),
    )
    // A phone: one card per customer, in the queue's order, each with their wait and Mark handled in
    // view without scrolling anything sideways (as a table, both sat past two columns).
    const cards = page.getByRole('list', { name: /Customers waiting/ }).getByRole('article')
    await expect(cards).toHaveCount(expected.length)
    await expect(page.getByRole('table', { name: /Customers waiting/ })).toHaveCount(0)
    const warned = page.getByText('Opted out: do not text', { exact: true })
    await expect(warned).toHaveCount(expected.filter((e) => e.optedOut).length)
    for (const [i, e] of expected.entries()) {
      const card = cards.nth(i)
      await expect(card).toHaveAccessibleName(`${fmt(e.party)}, waiting on ${fmt(DESK.number)}`)
      await expect(card).toContainText(e.lastInbound!.body)
      await expect(card).toContainText(`on ${fmt(DESK.number)}`)
      await card.scrollIntoViewIfNeeded()
      for (const target of [
        card.getByRole('button', { name: `Mark handled: ${fmt(e.party)} on ${fmt(DESK.number)}` }),
        card.getByRole('link', { name: `Open the thread with ${fmt(e.party)} on ${fmt(DESK.number)}` }),
        card.getByText(/^since /),
        ...(e.optedOut ? [card.getByText('Opted out: do not text', { exact: true })] : []),
      ]) {
        const b = (await target.boundingBox())!
        expect(b.x).toBeGreaterThanOrEqual(0)
        expect(b.x + b.width).toBeLessThanOrEqual(390)
      }
    }
    await page.screenshot({ path: '/tmp/desk-needs-reply-390.png', fullPage: true })
    await noPageScroll(page)

    await page.goto(`/desk/opt-outs?number=${DESK.number}&party=${DESK_PARTIES.stopTexting}`)
    const mine = optOutLedger(MESSAGES).find((e) => e.party === DESK_PARTIES.stopTexting)!
    await expect(page.getByRole('table', { name: /Messages sent after opt-out/ }).locator('tbody tr')).toHaveCount(mine.sentAfter.length)
    // A phone shows each row as a card, every cell under its column's name: none off to the right.
    await cellsOnScreen(
      page
        .getByRole('table', { name: /Messages sent after opt-out/ })
        .locator('tbody tr')
        .first(),
      ['Customer', 'Number', 'Their opt-out', 'What we sent after'],
    )
    await cellsOnScreen(
      page
        .getByRole('table', { name: /Opt-out state per number/ })
        .locator('tbody tr')
        .first(),
      ['Customer', 'Number', 'State now', 'History', 'Sent after opt-out'],
    )
    // Cards do not scroll sideways, and their regions do not say they do.
    for (const name of ['Opt-out state', 'Sent after opt-out']) await expect(page.getByRole('region', { name, exact: true })).toBeVisible()
    await page.screenshot({ path: '/tmp/desk-opt-outs-390.png', fullPage: true })
    await noPageScroll(page)

    await page.goto('/desk/customer')
    const box = page.getByRole('searchbox', { name: /Customer’s number/ })
    await expect(box).toBeFocused()
    await page.keyboard.type(DESK_PARTIES.wait20m.slice(1))
    await page.keyboard.press('Enter')
    await expect(page.getByRole('heading', { name: `Customer ${fmt(DESK_PARTIES.wait20m)}`, level: 1 })).toBeFocused()
    await expect(page.getByRole('table', { name: /Threads with/ }).locator('tbody tr')).toHaveCount(1)
    // Opt-out and Waiting sat 700 px to the right as a table.
    await cellsOnScreen(
      page
        .getByRole('table', { name: /Threads with/ })
        .locator('tbody tr')
        .first(),
      ['Number', 'First contact', 'Last contact', 'From them', 'To them', 'Failed', 'Opt-out', 'Waiting'],
    )
    await expect(page.getByRole('region', { name: 'Threads with this customer', exact: true })).toBeVisible()
    await page.screenshot({ path: '/tmp/desk-customer-390.png', fullPage: true })
    await noPageScroll(page)

    await page.goto(`/desk/quiet-hours?number=${DESK.number}`)
    await expect(page.getByRole('table', { name: /Quiet-hour sends, newest first/ }).locator('tbody tr')).toHaveCount(
      quietHourSends(MESSAGES).length,
    )
    await quietChartDrawn(page)
    await page.screenshot({ path: '/tmp/desk-quiet-390.png', fullPage: true })
    await noPageScroll(page)
    await page.goto(`/desk/segments?number=${DESK.number}`)
    await expect(page.getByRole('table', { name: /Segments per day/ })).toBeVisible()
    await page.screenshot({ path: '/tmp/desk-segments-390.png', fullPage: true })
    await noPageScroll(page)
  })

  test('quiet hours in the dark theme: the day chart draws in the dark palette at 1400 and 390 px', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' })
    for (const width of [1400, 390]) {
      await page.setViewportSize({ width, height: 900 })
      await page.goto(`/desk/quiet-hours?number=${DESK.number}`)
      await expect(page.locator('html')).toHaveClass(/\bdark\b/)
      await quietChartDrawn(page)
      // The canvas cannot be read by axe: the bars' and the axis's colours against the chart's background, as the browser resolves them.
      const m = await page.evaluate(() => {
        const probe = document.createElement('canvas').getContext('2d')!
        const rgb = (css: string) => {
          probe.clearRect(0, 0, 1, 1)
          probe.fillStyle = css
          probe.fillRect(0, 0, 1, 1)
          return [...probe.getImageData(0, 0, 1, 1).data].slice(0, 3)
        }
        const lum = (c: number[]) => {
          const l = c.map((v) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4))
          return 0.2126 * l[0]! + 0.7152 * l[1]! + 0.0722 * l[2]!
        }
        const ratio = (a: number[], b: number[]) => {
          const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p)
          return (x! + 0.05) / (y! + 0.05)
        }
        const figure = document.querySelector('figure')!
        let el: Element | null = figure
        let bg = 'rgb(255, 255, 255)'
        for (; el; el = el.parentElement) {
          const c = getComputedStyle(el).backgroundColor
          if (c && c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') {
            bg = c
            break
          }
        }
        const swatch = getComputedStyle(figure.querySelector('figcaption span[aria-hidden="true"]')!).backgroundColor
        const axis = getComputedStyle(document.documentElement).getPropertyValue('--color-slate-700').trim()
        return { background: lum(rgb(bg)), bars: ratio(rgb(swatch), rgb(bg)), axis: ratio(rgb(axis), rgb(bg)) }
      })
      expect(m.background).toBeLessThan(0.1)
      expect(m.bars).toBeGreaterThanOrEqual(3)
      expect(m.axis).toBeGreaterThanOrEqual(4.5)
      await page.screenshot({ path: `/tmp/desk-quiet-dark-${width}.png`, fullPage: true })
      await noPageScroll(page)
      expect(await axeViolations(page)).toEqual([])
    }
  })

  test('an admin sets the team threshold; the queue follows it, and a bad value is refused naming the field', async ({ page }) => {
    // Halfway between the shortest and the longest wait of the queue now: some stay, some leave.
    const waits = queueNow().map((e) => e.waitedMs)
    const minutes = Math.round((Math.min(...waits) + Math.max(...waits)) / 2 / 60_000)
    const handledMap = new Map([...handled].map(([party, at]) => [`${partyKey(DESK.number)}|${party}`, at]))
    const expected = needsReplyQueue(MESSAGES, minutes * 60_000, Date.now(), handledMap)
    // The threshold must change who waits, or this test would prove nothing.
    expect(expected.length).toBeLessThan(queueNow().length)
    expect(expected.length).toBeGreaterThan(0)
    try {
      await page.goto(`/desk/needs-reply?number=${DESK.number}`)
      const change = page.getByRole('button', { name: 'Change threshold' })
      // Escape closes the form and focus goes back to the button that opened it.
      await change.click()
      await expect(page.getByRole('textbox', { name: 'Threshold (minutes)' })).toBeFocused()
      await page.keyboard.press('Escape')
      await expect(change).toBeFocused()
      await change.click()
      const box = page.getByRole('textbox', { name: 'Threshold (minutes)' })
      await box.fill('soon')
      await page.keyboard.press('Enter')
      await expect(page.getByRole('alert')).toHaveText(/^Threshold \(minutes\) must be a whole number/)
      await box.fill(String(minutes))
      await page.keyboard.press('Enter')
      await expect(page.getByText(`once they have waited ${minutes} minutes (the team’s threshold, set by you)`)).toBeVisible()
      await expect(change).toBeFocused()
      await expect(page.getByRole('table', { name: /Customers waiting/ }).locator('tbody tr')).toHaveCount(expected.length)
    } finally {
      const r = await fetch(`${appUrl()}/api/desk/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ thresholdMinutes: 15 }),
      })
      expect(r.status).toBe(200)
    }
  })

  test('the navigation count follows the queue every minute while the page is open, not while hidden, and asks on return', async ({
    page,
  }) => {
    // The page's own requests for the count, seen as they leave the browser; never the queue itself.
    const asks: string[] = []
    const queueReads: string[] = []
    page.on('request', (r) => {
      const url = new URL(r.url())
      if (url.pathname === '/api/desk/needs-reply/count') asks.push(r.url())
      if (url.pathname === '/api/desk/needs-reply') queueReads.push(r.url())
    })
    /** The queue's total across every number, as the server answers it now. */
    const serverTotal = async () => ((await (await fetch(`${appUrl()}/api/desk/needs-reply?limit=1`)).json()) as { total: number }).total
    const count = page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Needs reply/ })
      .locator('span')
      .first()
    await page.clock.install()
    await page.goto('/')
    const before = await serverTotal()
    await expect(count).toHaveText(`: ${before} waiting`)
    // From here the page's time moves only when the test moves it: on a loaded machine the seconds
    // this test takes would otherwise count towards the minute. (Paused 2 s ahead: the page's time
    // goes on while the pause is sent, and pausing at a time already past is refused.)
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 2_000))
    const first = asks.length
    expect(first).toBeGreaterThanOrEqual(1)

    // A phone call answers the longest wait: the server's queue is one shorter.
    const next = queueNow()[0]!
    const r = await fetch(`${appUrl()}/api/desk/handled`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ number: DESK.number, party: next.party }),
    })
    expect(r.status, await r.text()).toBe(200)
    handled.set(next.party, new Date())
    expect(await serverTotal()).toBe(before - 1)

    // Not asked again within the minute; asked once the minute is up, and the count follows. (The
    // first ask left a few seconds before the pause at most: 50 s on it is within the minute, 61 s past it.)
    await page.clock.fastForward(50_000)
    await page.waitForTimeout(500)
    expect(asks.length).toBe(first)
    await expect(count).toHaveText(`: ${before} waiting`)
    await page.clock.fastForward(11_000)
    await expect.poll(() => asks.length).toBe(first + 1)
    await expect(count).toHaveText(`: ${before - 1} waiting`)

    // The badge never read the queue (a customer's number and text) to count it.
    expect(queueReads).toEqual([])

    // Hidden (another tab in front): five minutes pass without an ask.
    const setHidden = (hidden: boolean) =>
      page.evaluate((h) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') })
        // As a browser fires it: at the document, bubbling to the window (where TanStack Query listens).
        document.dispatchEvent(new Event('visibilitychange', { bubbles: true }))
      }, hidden)
    await setHidden(true)
    await page.clock.fastForward(5 * 60_000)
    await page.waitForTimeout(500)
    expect(asks.length).toBe(first + 1)
    // Back in front: asked at once, the count stale by then.
    await setHidden(false)
    await expect.poll(() => asks.length).toBe(first + 2)
  })

  test('a thread says when its customer opted out on that number, and one who did not carries no such line', async ({ page }) => {
    await page.goto(`/numbers/${DESK.number}/thread?tid=${DESK.tid}&party=${DESK_PARTIES.stopThenPromo}`)
    await expect(page.getByRole('status').filter({ hasText: 'Opted out on this number' })).toContainText('do not text them')
    await page.goto(`/numbers/${DESK.number}/thread?tid=${DESK.tid}&party=${DESK_PARTIES.wait2h}`)
    await expect(page.getByRole('heading', { level: 2, name: fmt(DESK_PARTIES.wait2h) })).toBeVisible()
    await expect(page.getByText('Opted out on this number')).toHaveCount(0)
  })

  test('UTC, once picked, stays picked from one desk page to the next', async ({ page }) => {
    await page.goto('/desk/needs-reply?tz=utc')
    const desk = page.getByRole('navigation', { name: 'Support desk' })
    for (const [name, path] of [
      ['Quiet hours', '/desk/quiet-hours'],
      ['Opt-outs', '/desk/opt-outs'],
      ['Customer', '/desk/customer'],
    ] as const) {
      await desk.getByRole('link', { name }).click()
      await expect(page).toHaveURL(new RegExp(`${path}\\?tz=utc$`))
    }
    // Local time (the default) is left out of the links, as everywhere.
    await page.getByRole('button', { name: /switch to local/i }).click()
    await desk.getByRole('link', { name: 'Needs reply' }).click()
    await expect(page).toHaveURL(/\/desk\/needs-reply$/)
  })

  test('empty and error states say why', async ({ page }) => {
    // A customer the index has never seen.
    await page.goto('/desk/customer?party=442071838750')
    await expect(page.getByText('No indexed conversation with')).toBeVisible()
    await expect(page.getByRole('link', { name: 'Search message text for this number' })).toHaveAttribute('href', '/search?q=442071838750')
    // Quiet hours and segments wait for a number.
    await page.goto('/desk/quiet-hours')
    await expect(page.getByText('Choose a number', { exact: true })).toBeVisible()
    // A number the account does not have, in the URL: said so, not reported on as if it sent nothing.
    for (const path of ['/desk/segments', '/desk/quiet-hours', '/desk/needs-reply']) {
      await page.goto(`${path}?number=12125550000`)
      await expect(page.getByText('(212) 555-0000 is not a number of this account')).toBeVisible()
    }
    await expect(page.getByText(/Nobody is waiting/)).toHaveCount(0)
  })
})

const n = (x: number) => x.toLocaleString('en-US')

function escape(s: string) {
  return s.replace(/[()]/g, '\\$&')
}
