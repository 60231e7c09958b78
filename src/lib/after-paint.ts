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
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const frame = requestAnimationFrame(() => {
      // rAF callbacks run just before the frame's paint; the timeout is the first task after it.
      timer = setTimeout(() => {
        startTransition(() => {
          setLate(() => value)
        })
      }, 0)
    })
    return () => {
      cancelAnimationFrame(frame)
      clearTimeout(timer)
    }
  }, [value])
  return late
}
