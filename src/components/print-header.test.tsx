// @vitest-environment happy-dom
import { act, cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { PrintHeader } from './print-header'

const RealDateTimeFormat = Intl.DateTimeFormat

afterEach(() => {
  cleanup()
  Intl.DateTimeFormat = RealDateTimeFormat
  vi.useRealTimers()
})

/** Counts the DateTimeFormats made (with or without `new`) from now on. */
function countDateTimeFormats(): { made: number } {
  const count = { made: 0 }
  Intl.DateTimeFormat = new Proxy(RealDateTimeFormat, {
    construct(target, args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      count.made++
      return new target(...args)
    },
    apply(target, _this, args: Parameters<typeof Intl.DateTimeFormat>) {
      count.made++
      return target(...args)
    },
  })
  return count
}

describe('PrintHeader', () => {
  it('writes the zone and the time printed when the page is printed, and makes no Intl call before', () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(new Date('2026-12-03T10:00:00Z'))
    const formats = countDateTimeFormats()
    const { container } = render(<PrintHeader title="Owned numbers" holds="All numbers: 60 numbers" zone="utc" />)
    const header = container.querySelector('header')!
    expect(header.textContent).toContain('All numbers: 60 numbers')
    expect(header.textContent).not.toContain('Printed:')
    // Naming the zone and formatting the date are the page's first Intl calls: not on screen, where the header is hidden.
    expect(formats.made).toBe(0)

    // Printed two days after it was drawn.
    vi.setSystemTime(new Date('2026-12-05T10:00:00Z'))
    // Ctrl+P.
    act(() => {
      window.dispatchEvent(new Event('beforeprint'))
    })
    expect(header.textContent).toContain('Time zone: UTC')
    // The time printed, not the time drawn.
    expect(header.textContent).toMatch(/Printed: Dec 5, 2026, 10:00\sAM UTC/)
    expect(formats.made).toBeGreaterThan(0)

    act(() => {
      window.dispatchEvent(new Event('afterprint'))
    })
    expect(header.textContent).not.toContain('Printed:')
  })
})
