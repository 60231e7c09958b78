import { useQueryClient } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import { meQuery, signIn, useMe } from '../../api/access'
import { ApiError } from '../../api/errors'
import { useNavigate } from '@tanstack/react-router'
import type { MouseEvent } from 'react'
import type { SignInSearch } from '../../lib/route-params'
import { Problem, problemText } from './problem'

/** Where to go after signing in: only a path on this site (never `//evil.example` or `/\evil`). */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || /[\u0000-\u001f]/.test(next)) return '/'
  if (next === '/signin' || next.startsWith('/signin?')) return '/'
  return next
}

/** "Continue" to where sign-in was asked from: any path on this site, so an href, not a typed route. */
function ContinueLink({ next }: { next: string }) {
  const navigate = useNavigate()
  const open = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    void navigate({ href: next })
  }
  return (
    <a href={next} onClick={open}>
      Continue
    </a>
  )
}

function words(err: unknown): string {
  if (err instanceof ApiError && err.status === 401)
    return 'That name and password do not match a user who may sign in. Check both and try again.'
  // 429 carries the limit in words, and when to try again; anything else, the server's message.
  return problemText(err)
}

export function SignInPage({ search }: { search: SignInSearch }) {
  const next = safeNext(search.next)
  const navigate = useNavigate()
  const me = useMe()
  const client = useQueryClient()
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<unknown>(null)

  const submit = async (e: SubmitEvent) => {
    e.preventDefault()
    setPending(true)
    setError(null)
    try {
      const who = await signIn(name, password)
      // Nothing another user (or nobody) loaded may be shown to this one.
      client.clear()
      client.setQueryData(meQuery().queryKey, who)
      await navigate({ href: next, replace: true })
    } catch (err) {
      setError(err)
      setPassword('')
    } finally {
      setPending(false)
    }
  }

  const mode = me.data?.mode
  if (mode === 'local' || mode === 'header')
    return (
      <section className="mx-auto max-w-md">
        <h1 className="text-xl font-semibold">Sign in</h1>
        <p className="mt-2">
          {mode === 'local'
            ? 'This Switchboard has no sign-in: it answers on this computer only (ACCESS=local).'
            : 'Sign-in is handled by your organisation’s single sign-on; there is no password here.'}{' '}
          <ContinueLink next={next} />.
        </p>
      </section>
    )

  return (
    <section className="mx-auto max-w-md">
      <h1 className="text-xl font-semibold">Sign in</h1>
      {me.data?.user ? (
        <p className="mt-2 text-sm">
          You are signed in as <strong>{me.data.user.name}</strong>. <ContinueLink next={next} />, or sign in as someone else.
        </p>
      ) : search.ended === '1' ? (
        <p role="status" className="mt-2 rounded border border-amber-300 bg-amber-50 p-2 text-sm text-amber-950">
          Your session ended (signed out elsewhere, or unused for too long). Sign in again to go back to where you were.
        </p>
      ) : (
        <p className="mt-2 text-sm text-slate-700">This Switchboard holds customer conversations; sign in to read them.</p>
      )}
      {error ? <Problem title="Could not sign in" message={words(error)} /> : null}
      <form className="mt-4 flex flex-col gap-3" onSubmit={submit} aria-label="Sign in">
        <label className="flex flex-col gap-1 text-sm font-medium">
          Name
          {/* The page's one task: the cursor is where the first thing is typed. */}
          <input
            className="input"
            name="username"
            autoComplete="username"
            autoFocus
            required
            value={name}
            onChange={(e) => {
              setName(e.target.value)
            }}
            maxLength={320}
          />
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium">
          Password
          <input
            className="input"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => {
              setPassword(e.target.value)
            }}
          />
        </label>
        <div>
          <button type="submit" className="btn-primary" disabled={pending}>
            {pending ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
    </section>
  )
}
