import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { signOut, useMe } from '../../api/access'
import { Link, useNavigate } from '@tanstack/react-router'

/**
 * Who is signed in, their role, and Sign out. Nothing in local mode (nobody signs in); no Sign
 * out behind a single-sign-on proxy (the proxy owns that session).
 */
export function UserMenu() {
  const me = useMe().data
  const client = useQueryClient()
  const [pending, setPending] = useState(false)
  const [failed, setFailed] = useState(false)
  const navigate = useNavigate()
  if (!me || me.mode === 'local') return null
  if (!me.user)
    return me.mode === 'password' ? (
      <Link to="/signin" className="text-sm text-slate-700 underline">
        Sign in
      </Link>
    ) : null

  const out = async () => {
    setPending(true)
    setFailed(false)
    try {
      await signOut()
      // Nothing the signed-out user loaded stays in memory for the next person at this screen.
      client.clear()
      await navigate({ to: '/signin', replace: true })
    } catch {
      setFailed(true)
    } finally {
      setPending(false)
    }
  }

  return (
    <div className="ml-auto flex items-center gap-2 text-sm" aria-label="Signed-in user" role="group">
      <span>
        <span className="font-medium">{me.user.name}</span> <span className="chip border-slate-300 text-slate-700">{me.user.role}</span>
      </span>
      {me.mode === 'password' ? (
        <button type="button" className="btn" onClick={out} disabled={pending}>
          {pending ? 'Signing out…' : 'Sign out'}
        </button>
      ) : null}
      {failed ? (
        <span role="alert" className="text-red-800">
          Sign-out failed; try again.
        </span>
      ) : null}
    </div>
  )
}
