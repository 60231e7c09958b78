import { digitsOf, phoneFormatting, phoneLibrary } from './phone'

// Apart from ./phone (in the entry chunk): only the customer page's number box reads typed numbers.

/**
 * A customer's number typed in any format (`(917) 555-0101`, `+44 20 7183 8750`, `0044 20…`,
 * `011 44 20…`) as the digits the index keys parties by (E.164 without the +), or what is wrong
 * with it, naming the field. Numbers without a country code are read as North American.
 */
export async function partyFromInput(raw: string, field = 'Customer’s number'): Promise<{ digits: string } | { error: string }> {
  const t = raw.trim()
  if (!t) return { error: `${field} is required: type a phone number in any format.` }
  if (!/^[\d\s().+\-/]+$/.test(t)) return { error: `${field} may hold only digits, spaces, + ( ) . - and /.` }
  // International call prefixes as dialled from North America or most of the world.
  const plus = t.replace(/^(?:00|011)\s*/, '+')
  // A leading 0 without a country code is another country's trunk prefix (020 7946 0958 in the
  // UK): which country is not in the digits, so the box asks rather than guessing.
  if (!plus.startsWith('+') && /^0/.test(digitsOf(plus)))
    return { error: `${field} starts with 0: type + and the country code instead of the 0 (for example +44 20 7946 0958).` }
  await phoneFormatting()
  const lib = phoneLibrary()
  const parsed = lib ? lib.parsePhoneNumberFromString(plus, 'US') : undefined
  const digits = parsed?.isPossible() ? parsed.number.slice(1) : digitsOf(plus)
  if (digits.length < 7 || digits.length > 15)
    return { error: `${field} must have 7 to 15 digits (a + and the country code for numbers outside North America).` }
  // Without a country code the number is read as North American: fewer than its ten digits is a
  // local number without its area code ("555-0105" opened a customer 5550105 nobody could be).
  if (!plus.startsWith('+') && digits.length < 10)
    return {
      error: `${field} is missing digits: a North American number has 10 (the area code first); for another country type + and its country code.`,
    }
  // Ten digits typed without a country code are North American; after one (+, 00, 011) they are
  // that country's number, whatever their length.
  const northAmerican = !plus.startsWith('+') && digits.length === 10 && /^[2-9]/.test(digits)
  return { digits: northAmerican ? `1${digits}` : digits }
}
