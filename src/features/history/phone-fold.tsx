import { useState, type ReactNode } from 'react'
import { useMedia } from '../../components/data-table/layout'

/** Phones: below Tailwind's `sm`. */
const NARROW = '(max-width: 639px)'

/**
 * On a phone, a part of the page the first screen can do without (the number's details, the
 * date look-up, the page filters) folds behind one line that says what it holds, so the
 * messages start on the first screen; it opens by itself when it is in use. Wider screens show
 * it as it is. The fold is a native <details>: keyboard and screen readers know it.
 */
export function PhoneFold({ summary, open: inUse = false, children }: { summary: ReactNode; open?: boolean; children: ReactNode }) {
  const narrow = useMedia(NARROW)
  const [open, setOpen] = useState(inUse)
  // Put in use from elsewhere (a filter from a link, a date looked up): open it, once.
  const [wasInUse, setWasInUse] = useState(inUse)
  if (inUse !== wasInUse) {
    setWasInUse(inUse)
    if (inUse) setOpen(true)
  }
  if (!narrow) return <>{children}</>
  return (
    <details
      open={open}
      onToggle={(e) => {
        setOpen(e.currentTarget.open)
      }}
      className="mt-2 rounded border border-slate-200 bg-white text-sm"
    >
      <summary className="cursor-pointer px-3 py-2 font-medium">{summary}</summary>
      <div className="px-1 pb-2">{children}</div>
    </details>
  )
}
