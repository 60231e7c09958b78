import { useId, useRef } from 'react'
import { useMeta } from '../api/meta'
import { useDismissed } from '../lib/use-dismissed'

export const DEMO_BANNER_KEY = 'switchboard.demoBanner.hidden'

/**
 * Whenever the server answers from its built-in simulator, every page says so: the data is made
 * up, and a newcomer who took it for their account's would trust (or distrust) it for the wrong
 * reason. The full notice can be put away; a short label then stays in its place, and opens it
 * again. It never disappears while the data is the simulator's.
 */
export function DemoBanner() {
  const { simulatorAccount } = useMeta()
  const [hidden, setHidden] = useDismissed(DEMO_BANNER_KEY)
  const showButton = useRef<HTMLButtonElement>(null)
  const hideButton = useRef<HTMLButtonElement>(null)
  const headingId = useId()
  if (!simulatorAccount) return null
  const account = simulatorAccount === 'large' ? 'the large account, 10,000 numbers' : 'the demo account, 60 numbers'
  if (hidden)
    return (
      <div className="border-b border-amber-300 bg-amber-50 text-amber-950 print:hidden">
        <div className="mx-auto flex max-w-7xl items-center gap-2 px-4 py-1 text-sm">
          <span className="font-semibold">Demo data (built-in simulator)</span>
          <button
            ref={showButton}
            type="button"
            className="underline underline-offset-2"
            aria-expanded="false"
            onClick={() => {
              setHidden(false)
              // Focus stays on the control that moved the notice, not on the page's body.
              requestAnimationFrame(() => hideButton.current?.focus())
            }}
          >
            What is this?
          </button>
        </div>
      </div>
    )
  return (
    <section aria-labelledby={headingId} className="border-b border-amber-300 bg-amber-50 text-amber-950 print:hidden">
      <div className="mx-auto flex max-w-7xl flex-wrap items-start gap-x-4 gap-y-2 px-4 py-2 text-sm">
        <div className="min-w-0 flex-1 basis-72">
          <h2 id={headingId} className="font-semibold">
            Demo data from the built-in simulator
          </h2>
          <p className="mt-0.5">
            No messaging account is configured, so Switchboard shows {account} of its built-in simulator. Every number, customer and message
            here is made up, and nothing is sent anywhere.
          </p>
          <p className="mt-0.5">
            To see your own account, set <code>API_BASE_URL</code>, <code>API_SYS_ID</code> and <code>API_AUTH_TOKEN</code> (in{' '}
            <code>.env</code> or the environment) and restart the server; the README lists every variable.
          </p>
        </div>
        <button
          ref={hideButton}
          type="button"
          className="btn shrink-0"
          aria-expanded="true"
          onClick={() => {
            setHidden(true)
            requestAnimationFrame(() => showButton.current?.focus())
          }}
        >
          Hide this notice
        </button>
      </div>
    </section>
  )
}
