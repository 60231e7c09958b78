import { isRole, LEAST_ROLE, ROLES } from '../../../contract/roles'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { SidewaysRegion } from '../../components/sideways-region'
import { useRef, useState, type SubmitEvent } from 'react'
import { addUser, changeUser, removeUser, useMe, usersQuery, type Role, type User } from '../../api/access'
import { InlineConfirm } from '../../components/inline-confirm'
import { ApiError } from '../../api/errors'
import { Problem, problemText } from './problem'

/**
 * Admins manage users (ACCESS=password): add, change role, reset a password, disable, remove.
 * The server enforces every rule (admins only, the last admin stays, password length); this
 * page shows its answers in words.
 */
export function UsersPage() {
  const me = useMe().data
  const users = useQuery(usersQuery())
  const client = useQueryClient()
  const refresh = () => client.invalidateQueries({ queryKey: usersQuery().queryKey })
  const [notice, setNotice] = useState<string | null>(null)

  return (
    <section>
      <h1 className="text-xl font-semibold">Users</h1>
      {me && me.mode !== 'password' ? (
        <p className="mt-2 text-sm">
          {me.mode === 'local'
            ? 'This Switchboard runs with ACCESS=local: nobody signs in, so these users are not used until ACCESS=password.'
            : 'This Switchboard runs with ACCESS=header: people sign in through the single-sign-on proxy and admins come from ADMINS; these users are not used.'}
        </p>
      ) : null}
      <p role="status" className="mt-2 min-h-5 text-sm text-green-800">
        {notice}
      </p>
      <AddUserForm
        onAdded={(u) => {
          setNotice(`Added ${u.name} (${u.role}).`)
          void refresh()
        }}
      />
      {users.error ? <Problem title="Could not load the users" message={problemText(users.error)} /> : null}
      {users.isPending ? <p role="status">Loading users…</p> : null}
      {users.data ? (
        // Wider than a phone with its actions: a region of its own scrolls sideways, not the page.
        <SidewaysRegion label="Users (scrolls sideways)" className="mt-4">
          <table className="w-full border-collapse text-sm">
            <caption className="sr-only">Users</caption>
            <thead>
              <tr className="border-b border-slate-300 text-left">
                <th scope="col" className="py-2 pr-3">
                  Name
                </th>
                <th scope="col" className="py-2 pr-3">
                  Role
                </th>
                <th scope="col" className="py-2 pr-3">
                  Status
                </th>
                <th scope="col" className="py-2 pr-3">
                  Created
                </th>
                <th scope="col" className="py-2 pr-3">
                  Actions
                </th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <UserRow
                  key={u.name}
                  user={u}
                  isSelf={me?.user?.name === u.name}
                  onChanged={(text) => {
                    setNotice(text)
                    void refresh()
                  }}
                />
              ))}
            </tbody>
          </table>
        </SidewaysRegion>
      ) : null}
      {users.data?.length === 0 ? <p className="mt-2">No users yet.</p> : null}
    </section>
  )
}

function AddUserForm({ onAdded }: { onAdded: (u: User) => void }) {
  const [name, setName] = useState('')
  const [role, setRole] = useState<Role>(LEAST_ROLE)
  const [password, setPassword] = useState('')
  const nameInput = useRef<HTMLInputElement>(null)
  const passwordInput = useRef<HTMLInputElement>(null)
  const add = useMutation({
    mutationFn: addUser,
    onSuccess: (u) => {
      setName('')
      setPassword('')
      onAdded(u)
    },
    // The button was disabled while it ran, so focus had fallen to the page: back to the field
    // the server named (the password, most often), else the name, beside the error.
    onError: (err) => {
      const field = err instanceof ApiError ? err.extra.field : undefined
      ;(field === 'password' ? passwordInput : nameInput).current?.focus()
    },
  })
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    add.mutate({ name, role, password })
  }
  return (
    <form onSubmit={submit} aria-label="Add a user" className="mt-3 flex flex-wrap items-end gap-3 rounded border border-slate-200 p-3">
      <label className="flex flex-col gap-1 text-sm font-medium">
        New user’s name
        <input
          ref={nameInput}
          className="input"
          value={name}
          onChange={(e) => {
            setName(e.target.value)
          }}
          required
          maxLength={64}
          autoComplete="off"
        />
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        Role
        <select
          className="input"
          value={role}
          onChange={(e) => {
            setRole(isRole(e.target.value) ? e.target.value : LEAST_ROLE)
          }}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        Password (at least 12 characters)
        <input
          ref={passwordInput}
          className="input"
          type="password"
          value={password}
          onChange={(e) => {
            setPassword(e.target.value)
          }}
          required
          autoComplete="new-password"
        />
      </label>
      <button type="submit" className="btn-primary" disabled={add.isPending}>
        {add.isPending ? 'Adding…' : 'Add user'}
      </button>
      {add.error ? (
        <div className="w-full">
          <Problem title="Could not add the user" message={problemText(add.error)} />
        </div>
      ) : null}
    </form>
  )
}

function UserRow({ user, isSelf, onChanged }: { user: User; isSelf: boolean; onChanged: (text: string) => void }) {
  const [resetting, setResetting] = useState(false)
  const [confirmRemove, setConfirmRemove] = useState(false)
  /** Cancel puts focus back on Remove (it was unmounted while the question showed). */
  const refocusRemove = useRef(false)
  const [password, setPassword] = useState('')
  const change = useMutation({
    mutationFn: (c: { role?: Role; password?: string; disabled?: boolean }) => changeUser(user.name, c),
    onSuccess: (_u, c) => {
      if (c.password !== undefined) {
        setResetting(false)
        setPassword('')
        onChanged(`New password set for ${user.name}; their sessions have ended.`)
      } else if (c.disabled !== undefined) onChanged(c.disabled ? `${user.name} can no longer sign in.` : `${user.name} can sign in again.`)
      else onChanged(`${user.name} is now ${c.role}.`)
    },
  })
  const remove = useMutation({
    mutationFn: () => removeUser(user.name),
    onSuccess: () => {
      onChanged(`Removed ${user.name}.`)
    },
  })
  const error = change.error ?? remove.error

  return (
    <>
      <tr className="border-b border-slate-200 align-top">
        <th scope="row" className="py-2 pr-3 text-left font-medium">
          {user.name}
          {isSelf ? <span className="font-normal text-slate-600"> (you)</span> : null}
        </th>
        <td className="py-2 pr-3">
          <select
            className="input"
            aria-label={`Role of ${user.name}`}
            value={user.role}
            disabled={change.isPending}
            onChange={(e) => {
              if (isRole(e.target.value)) change.mutate({ role: e.target.value })
            }}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </td>
        <td className="py-2 pr-3">{user.disabled ? 'Disabled' : 'Active'}</td>
        <td className="py-2 pr-3 whitespace-nowrap">{user.createdAt.slice(0, 10)}</td>
        <td className="py-2 pr-3">
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className="btn"
              aria-expanded={resetting}
              onClick={() => {
                setResetting((v) => !v)
              }}
            >
              Reset password<span className="sr-only"> of {user.name}</span>
            </button>
            <button
              type="button"
              className="btn"
              disabled={change.isPending}
              onClick={() => {
                change.mutate({ disabled: !user.disabled })
              }}
            >
              {user.disabled ? 'Enable' : 'Disable'}
              <span className="sr-only"> {user.name}</span>
            </button>
            {confirmRemove ? (
              // Focus on Cancel when it opens, Escape cancels, as Forget and saved views' Delete do.
              <InlineConfirm
                confirmLabel={`Confirm removal of ${user.name}`}
                onConfirm={() => {
                  remove.mutate()
                }}
                onCancel={() => {
                  refocusRemove.current = true
                  setConfirmRemove(false)
                }}
                busy={remove.isPending}
              >
                <span className="text-slate-700">Their saved views go too, shared ones included.</span>
              </InlineConfirm>
            ) : (
              <button
                ref={(el) => {
                  if (el && refocusRemove.current) {
                    refocusRemove.current = false
                    el.focus()
                  }
                }}
                type="button"
                className="btn"
                onClick={() => {
                  setConfirmRemove(true)
                }}
              >
                Remove<span className="sr-only"> {user.name}</span>
              </button>
            )}
          </div>
          {resetting ? (
            <form
              className="mt-2 flex flex-wrap items-end gap-2"
              aria-label={`New password for ${user.name}`}
              onSubmit={(e) => {
                e.preventDefault()
                change.mutate({ password })
              }}
            >
              <label className="flex flex-col gap-1 text-sm font-medium">
                New password
                <input
                  className="input"
                  type="password"
                  value={password}
                  onChange={(e) => {
                    setPassword(e.target.value)
                  }}
                  required
                  autoComplete="new-password"
                />
              </label>
              <button type="submit" className="btn-primary" disabled={change.isPending}>
                Set password
              </button>
            </form>
          ) : null}
        </td>
      </tr>
      {error ? (
        <tr>
          <td colSpan={5}>
            <Problem title={`Could not ${remove.error ? 'remove' : 'change'} ${user.name}`} message={problemText(error)} />
          </td>
        </tr>
      ) : null}
    </>
  )
}
