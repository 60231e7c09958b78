import { useEffect, useState } from 'react'

/**
 * A text box bound to a URL parameter: typing updates the box at once and the URL (and so the
 * query) after `ms` of quiet. When the URL changes from outside (back/forward, a link), the box
 * follows it.
 */
export function useDebouncedParam(urlValue: string, commit: (v: string) => unknown, ms = 250) {
  const [text, setText] = useState(urlValue)
  const [seen, setSeen] = useState(urlValue)
  if (urlValue !== seen) {
    setSeen(urlValue)
    setText(urlValue)
  }
  useEffect(() => {
    if (text === urlValue) return
    const t = setTimeout(() => commit(text), ms)
    return () => {
      clearTimeout(t)
    }
  }, [text, urlValue, commit, ms])
  return [text, setText] as const
}
