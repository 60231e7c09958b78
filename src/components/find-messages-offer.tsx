import { formatPhone } from '../lib/phone'
import { Link } from '@tanstack/react-router'

/**
 * For the numbers page's search box: when what was typed looks like a phone number (7 or more
 * digits) and is not one of the account's numbers, offer to search every message with it.
 * `isOwnNumber` gets the typed digits; render this under the box.
 */
export function FindMessagesOffer({ typed, isOwnNumber }: { typed: string; isOwnNumber: (digits: string) => boolean }) {
  const digits = typed.replace(/\D/g, '')
  if (digits.length < 7 || digits.length > 15 || isOwnNumber(digits)) return null
  return (
    <p className="mt-1 text-sm">
      <Link to="/search" search={{ party: digits }} className="text-blue-800 underline">
        Find messages with {formatPhone(digits)}
      </Link>
    </p>
  )
}
