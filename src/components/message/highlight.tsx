import { Fragment } from 'react'

/**
 * Text with every case-insensitive occurrence of `needle` in a <mark>. The text is split into
 * strings and rendered as React text nodes: a stranger's message can never become markup.
 */
export function splitMatches(text: string, needle: string): Array<{ text: string; match: boolean }> {
  const n = needle.trim().toLowerCase()
  if (!n) return [{ text, match: false }]
  const lower = text.toLowerCase()
  const out: Array<{ text: string; match: boolean }> = []
  let at = 0
  // Lower-casing can change a string's length for a few scripts; fall back to no marks then.
  if (lower.length !== text.length) return [{ text, match: false }]
  for (;;) {
    const i = lower.indexOf(n, at)
    if (i < 0) break
    if (i > at) out.push({ text: text.slice(at, i), match: false })
    out.push({ text: text.slice(i, i + n.length), match: true })
    at = i + n.length
  }
  if (at < text.length) out.push({ text: text.slice(at), match: false })
  return out
}

export function Highlighted({ text, needle }: { text: string; needle: string }) {
  return (
    <>
      {splitMatches(text, needle).map((p, i) =>
        p.match ? (
          <mark key={i} className="rounded-sm bg-yellow-200 px-0.5 text-slate-950">
            {p.text}
          </mark>
        ) : (
          <Fragment key={i}>{p.text}</Fragment>
        ),
      )}
    </>
  )
}
