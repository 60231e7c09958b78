import { formatPhone } from '../lib/phone'

/** A select's options, one a number, shown formatted, the number's digits as the value. */
export function NumberOptions({ numbers }: { numbers: ReadonlyArray<{ number: string }> }) {
  return numbers.map((n) => (
    <option key={n.number} value={n.number}>
      {formatPhone(n.number)}
    </option>
  ))
}
