// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react'
import { afterEach, expect, test } from 'vitest'
import { BodyText, PRINT_MAX_CHARS } from './message-parts'

afterEach(cleanup)

/** What paper gets: the text of the parts not hidden in print (`print:hidden`), and the print-only parts. */
function printedText(root: HTMLElement): string {
  const out: string[] = []
  const walk = (n: Node) => {
    if (n instanceof HTMLElement && n.className.split(' ').includes('print:hidden')) return
    if (n.nodeType === Node.TEXT_NODE) out.push(n.textContent ?? '')
    n.childNodes.forEach(walk)
  }
  walk(root)
  return out.join('')
}

test('a list prints at most PRINT_MAX_CHARS of one body, and says how much it left out', () => {
  const body = 'A'.repeat(1_000_000)
  const { container } = render(<BodyText body={body} />)
  const paper = printedText(container)
  // A million characters printed a 24-message history page on 198 sheets.
  expect(paper).toContain(`${'A'.repeat(PRINT_MAX_CHARS)}…`)
  expect(paper).not.toContain('A'.repeat(PRINT_MAX_CHARS + 1))
  expect(paper).toContain("(995,000 more characters not printed: the message's own page prints it whole.)")
})

test("the message's own page prints the body whole, and a body under the cap prints whole anywhere", () => {
  const body = `${'B'.repeat(PRINT_MAX_CHARS)}tail`
  const whole = render(<BodyText body={body} printWhole />)
  expect(printedText(whole.container)).toContain(body)
  expect(whole.container.textContent).not.toContain('not printed')
  cleanup()
  const short = 'C'.repeat(PRINT_MAX_CHARS)
  const list = render(<BodyText body={short} />)
  expect(printedText(list.container)).toContain(short)
  expect(list.container.textContent).not.toContain('not printed')
})
