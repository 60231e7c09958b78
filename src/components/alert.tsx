import { useEffect, useRef } from 'react'
import { toApiError, wordsFor } from '../api/errors'

/**
 * An error the user can act on: what went wrong (words from the kind), where it failed (the
 * server's `cause`), the server's details, and what to do. Retry only where a retry can help;
 * otherwise the hint says what to do instead. `where` names what was being loaded; `doing`, for
 * an action that failed, what was being done ("marking … handled"). `takeFocus`: the alert takes
 * keyboard focus when it appears (the control that failed was disabled while it worked, and
 * focus had fallen to the page's body).
 */
export function ErrorAlert({
  error,
  onRetry,
  retrying,
  keptData,
  where,
  doing,
  takeFocus,
}: {
  error: unknown
  onRetry?: () => void
  retrying?: boolean
  keptData?: boolean
  where?: string
  doing?: string
  takeFocus?: boolean
}) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (takeFocus) box.current?.focus()
  }, [takeFocus, error])
  const err = toApiError(error)
  const words = wordsFor(err)
  const cause = err.extra.cause
  return (
    <div
      ref={box}
      role="alert"
      tabIndex={takeFocus ? -1 : undefined}
      className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900"
      data-error-kind={err.kind}
    >
      <p className="font-semibold">
        {words.title}
        {doing ? (
          <span className="font-normal"> while {doing}</span>
        ) : where ? (
          <span className="font-normal"> while loading {where}</span>
        ) : null}
      </p>
      {cause ? <p className="mt-0.5 text-sm">Cause: {cause}</p> : null}
      {err.message && err.message !== words.title ? <p className="mt-0.5 text-sm">Details: {err.message}</p> : null}
      <p className="mt-0.5 text-sm">
        {words.hint}
        {keptData ? ' The rows still shown are from the last successful load.' : ''}
      </p>
      {words.retry && onRetry ? (
        <button type="button" className="btn mt-2 print:hidden" onClick={onRetry} disabled={retrying}>
          {retrying ? 'Retrying…' : 'Retry'}
        </button>
      ) : null}
    </div>
  )
}

/**
 * A page whose code did not load (src/lib/module-load.ts): said as what it is, not as an error of
 * the messaging service, with the one thing that helps.
 */
export function CodeLoadAlert({ where }: { where: string }) {
  return (
    <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900" data-error-kind="code_load">
      <p className="font-semibold">
        The page could not be loaded<span className="font-normal"> while opening {where}</span>
      </p>
      <p className="mt-0.5 text-sm">
        Switchboard may have been updated since this tab was opened, or the connection to it dropped. Reloading gets the current version.
      </p>
      <ReloadButton className="mt-2" />
    </div>
  )
}

/** "Reload the page": where only a fresh copy of the app can help. */
export function ReloadButton({ className }: { className: string }) {
  return (
    <button
      type="button"
      className={`btn print:hidden ${className}`}
      onClick={() => {
        window.location.reload()
      }}
    >
      Reload the page
    </button>
  )
}
