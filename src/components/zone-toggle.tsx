import { zoneLabel, type Zone } from '../lib/dates'
import { useUrlBound } from '../lib/use-url-bound'

/**
 * The time-zone switch of a page whose zone is in its URL (`tz`): a toggle button, pressed for
 * UTC. A press shows at once (useUrlBound); `onChange` gets the URL's value (`null` is local,
 * the default). `short` leaves out "Times in …" where the sentence around it says the zone.
 */
export function ZoneToggle({
  zone,
  onChange,
  short = false,
  className = 'btn',
}: {
  zone: Zone
  onChange: (tz: 'utc' | null) => unknown
  short?: boolean
  className?: string
}) {
  const [shown, setShown] = useUrlBound(zone, (next: Zone) => onChange(next === 'utc' ? 'utc' : null))
  const other = shown === 'utc' ? 'local time' : 'UTC'
  return (
    <button
      type="button"
      className={className}
      aria-pressed={shown === 'utc'}
      onClick={() => {
        setShown(shown === 'utc' ? 'local' : 'utc')
      }}
    >
      {short ? `Switch to ${other}` : `Times in ${zoneLabel(shown)} — switch to ${other}`}
    </button>
  )
}
