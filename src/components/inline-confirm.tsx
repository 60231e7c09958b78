import { useCallback, useEffect, useRef, type ReactNode } from 'react'

/**
 * Where keyboard focus goes back to when an inline form closes: the button that opened it (it
 * was unmounted while the form showed, so focus had fallen to the page's body). `refFor(key)` is
 * the opener's ref; `returnTo(key)` before closing marks the opener that takes focus when it is
 * drawn again.
 */
export function useReturnFocus<K>() {
  const pending = useRef<{ key: K } | null>(null)
  const refFor = useCallback(
    (key: K) => (el: HTMLElement | null) => {
      if (el && pending.current && Object.is(pending.current.key, key)) {
        pending.current = null
        el.focus()
      }
    },
    [],
  )
  const returnTo = useCallback((key: K) => {
    pending.current = { key }
  }, [])
  return { refFor, returnTo }
}

/**
 * A question asked in place, with a destructive button and Cancel. It takes focus when it opens
 * (on Cancel, the safe answer) and Escape cancels it, as a dialog would.
 */
export function InlineConfirm({
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  busy,
}: {
  children?: ReactNode
  confirmLabel: string
  onConfirm: () => unknown
  onCancel: () => unknown
  busy: boolean
}) {
  const cancel = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    cancel.current?.focus()
  }, [])
  return (
    <span
      className="flex flex-wrap items-center gap-2"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault()
          onCancel()
        }
      }}
    >
      {children}
      <button type="button" className="btn border-red-700 text-red-800" onClick={() => void onConfirm()} disabled={busy}>
        {confirmLabel}
      </button>
      <button ref={cancel} type="button" className="btn" onClick={() => void onCancel()}>
        Cancel
      </button>
    </span>
  )
}
