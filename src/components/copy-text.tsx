import { useState } from 'react'

/** A value shown as selectable text with a copy button; the raw value is what is copied. */
export function CopyText({ value, label, display }: { value: string | null; label: string; display?: string }) {
  const [copied, setCopied] = useState(false)
  if (!value) return <span aria-label={`${label}: none`}>—</span>
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      setCopied(true)
      setTimeout(() => {
        setCopied(false)
      }, 1500)
    } catch {
      setCopied(false)
    }
  }
  return (
    <span className="inline-flex items-center gap-1">
      <span className="font-mono text-xs break-all select-all">{display ?? value}</span>
      <button
        type="button"
        className="rounded px-1 text-xs text-blue-800 hover:bg-blue-50"
        onClick={() => void copy()}
        aria-label={`Copy ${label} ${value}`}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </span>
  )
}
