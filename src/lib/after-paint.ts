import { startTransition, useEffect, useState } from 'react'

/**
 * `value`, one painted frame late. Work keyed on the result (the numbers audit: 10–15 ms over
 * 10,000 rows in one piece) starts in the task after the frame that shows `value`'s first
 * render, never between that render and its paint. useDeferredValue alone does not promise
 * this: its render was sometimes scheduled ahead of the frame and held the first rows back.
 * The late update is a transition, so typing or clicking still goes first.
 */
export function useAfterPaint<T>(value: T): T | undefined {
  const [late, setLate] = useState<T | undefined>(undefined)
  useEffect(
    () =>
      afterPaint(() => {
        startTransition(() => {
          setLate(() => value)
        })
      }),
    [value],
  )
  return late
}

/**
 * Runs `fn` in the first task after the next painted frame; returns a cancel. For work an effect
 * starts that the frame does not need: a discrete update (a click) flushes its effects in the same
 * task as its render, so a fetch started there (3–5 ms of the main thread in Chromium for the
 * call alone) otherwise ran between the render and its paint. In a hidden tab, frames wait, and so does `fn`.
 */
export function afterPaint(fn: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined
  // rAF callbacks run just before the frame's paint; the timeout is the first task after it.
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(fn, 0)
  })
  return () => {
    cancelAnimationFrame(frame)
    clearTimeout(timer)
  }
}
