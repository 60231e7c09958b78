// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { matchNumbers, NumberCombobox, SHOWN_MAX } from './number-combobox'

afterEach(cleanup)

// A large account: 10,000 numbers.
const NUMBERS = Array.from({ length: 10_000 }, (_, i) => ({ number: String(12125550000 + i) }))

function Picker({ onPick = () => {} }: { onPick?: (n: string) => void }) {
  const [value, setValue] = useState('')
  return (
    <NumberCombobox
      label="Number"
      numbers={NUMBERS}
      value={value}
      allLabel="All numbers (account-wide)"
      onPick={(n) => {
        setValue(n)
        onPick(n)
      }}
    />
  )
}

describe('the number combobox', () => {
  it('matches digits anywhere, however they are written', () => {
    expect(matchNumbers(NUMBERS, '555-9999').map((n) => n.number)).toEqual(['12125559999'])
    expect(matchNumbers(NUMBERS, '(212) 555-01').length).toBe(100)
    expect(matchNumbers(NUMBERS, '').length).toBe(10_000)
  })

  it('is a combobox with a list popup, draws at most 50 options of 10,000 and says how many more', () => {
    render(<Picker />)
    const box = screen.getByRole('combobox', { name: 'Number' })
    expect(box.getAttribute('aria-expanded')).toBe('false')
    fireEvent.change(box, { target: { value: '555' } })
    expect(box.getAttribute('aria-expanded')).toBe('true')
    const list = screen.getByRole('listbox', { name: 'Number' })
    expect(within(list).getAllByRole('option')).toHaveLength(SHOWN_MAX)
    expect(screen.getByText(/9,950 more: type more digits/)).toBeTruthy()
    expect(screen.getByRole('status').textContent).toBe('10,000 numbers match')
  })

  it('picks by keyboard once, on Enter, not on every arrow', () => {
    const picks: string[] = []
    render(<Picker onPick={(n) => picks.push(n)} />)
    const box = screen.getByRole<HTMLInputElement>('combobox', { name: 'Number' })
    fireEvent.change(box, { target: { value: '555-99' } })
    const third = within(screen.getByRole('listbox')).getAllByRole('option')[2]!.textContent
    fireEvent.keyDown(box, { key: 'ArrowDown' })
    fireEvent.keyDown(box, { key: 'ArrowDown' })
    const active = box.getAttribute('aria-activedescendant')
    expect(document.getElementById(active!)!.textContent).toBe(third)
    expect(picks).toEqual([])
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(picks).toEqual([`1${third.replace(/\D/g, '')}`])
    expect(box.value).toBe(third)
    expect(box.getAttribute('aria-expanded')).toBe('false')
  })

  it('goes back to the pick on Escape, and offers "All" first', () => {
    render(<Picker />)
    const box = screen.getByRole<HTMLInputElement>('combobox', { name: 'Number' })
    expect(box.value).toBe('All numbers (account-wide)')
    fireEvent.change(box, { target: { value: '99' } })
    fireEvent.keyDown(box, { key: 'Escape' })
    expect(box.value).toBe('All numbers (account-wide)')
    fireEvent.keyDown(box, { key: 'ArrowDown' })
    expect(within(screen.getByRole('listbox')).getAllByRole('option')[0]!.textContent).toBe('All numbers (account-wide)')
  })

  it('picks with a click', () => {
    const picks: string[] = []
    render(<Picker onPick={(n) => picks.push(n)} />)
    fireEvent.change(screen.getByRole('combobox', { name: 'Number' }), { target: { value: '5550042' } })
    fireEvent.click(screen.getByRole('option', { name: '(212) 555-0042' }))
    expect(picks).toEqual(['12125550042'])
  })
})
