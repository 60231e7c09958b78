import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useRef, useState, type SubmitEvent, type MouseEvent } from 'react'
import { InlineConfirm, useReturnFocus } from '../../components/inline-confirm'
import { RANGE_LABELS, VIEW_NAME_MAX } from '../../../contract/saved-views'
import { toApiError } from '../../api/errors'
import { useMe } from '../../api/me'
import {
  deleteView,
  openView,
  renameView,
  shareView,
  viewCountsQuery,
  viewHref,
  viewsQuery,
  refreshViews,
  type SavedView,
} from '../../api/views'
import { formatCount } from '../../lib/count'
import { Link, useNavigate, useRouter, useRouterState } from '@tanstack/react-router'

/**
 * The saved views in the navigation, each with the matches the index stored since you last
 * opened it. Opening one marks it opened (its count starts again) and shows the Search page with
 * its relative dates worked out now. Your own views can be renamed, shared or made private, and
 * deleted under "Manage".
 */
export function SavedViewsNav() {
  const me = useMe().data
  const signedIn = Boolean(me && (me.mode === 'local' || me.user))
  const views = useQuery({ ...viewsQuery(), enabled: signedIn })
  // Counted (and logged) only when there is something to count.
  const counts = useQuery({ ...viewCountsQuery(), enabled: signedIn && Boolean(views.data?.length) })
  const client = useQueryClient()
  const here = useRouterState({ select: (s) => s.location.href })
  const router = useRouter()
  const navigate = useNavigate()
  const [managing, setManaging] = useState(false)
  // A view deleted takes its row's buttons with it: focus goes back to Manage.
  const manageButton = useRef<HTMLButtonElement>(null)
  if (!signedIn || !views.data) return null
  if (!views.data.length)
    // None saved yet: the row says the feature is here and where views come from, so nobody has to
    // find Save view by chance. Not on a phone, where the header is already three lines tall.
    return (
      <div className="mx-auto hidden max-w-7xl px-4 pb-2 sm:block">
        <nav aria-label="Saved views" className="flex flex-wrap items-center gap-x-2 text-sm">
          <span className="font-semibold text-slate-700">Saved views</span>
          {/* One line from 640 px up: the header keeps a line for this row (layout.tsx). */}
          <span className="text-slate-600">
            {here.startsWith('/search') ? (
              'None yet. Save this search by name with Save view.'
            ) : (
              <>
                None yet. Save any search by name from the{' '}
                <Link to="/search" className="underline underline-offset-2">
                  Search page
                </Link>
                .
              </>
            )}
          </span>
        </nav>
      </div>
    )

  const refresh = () => refreshViews(client)
  const open = (e: MouseEvent<HTMLAnchorElement>, v: SavedView) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
    e.preventDefault()
    // The range is worked out at the click, not when the list was drawn (a page left open past midnight).
    void navigate({ href: viewHref(v) })
    void openView(v.id)
      .then(refresh)
      .catch(() => undefined)
  }

  return (
    <div className="mx-auto max-w-7xl px-4 pb-2">
      <nav aria-label="Saved views" className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
        <span className="font-semibold text-slate-700">Saved views</span>
        {views.data.map((v) => {
          const href = viewHref(v)
          // The address the router would show for it (defaults left out, commas kept), to compare with this one.
          const shownAs = router.buildLocation({ href } as never).href
          const fresh = counts.data?.get(v.id) ?? null
          return (
            <a
              key={v.id}
              href={href}
              onClick={(e) => {
                open(e, v)
              }}
              aria-current={here === shownAs ? 'page' : undefined}
              className="text-slate-700 underline-offset-2 hover:underline aria-[current=page]:font-semibold"
            >
              {v.name}
              {v.mine ? null : <span className="text-slate-600"> ({v.owner})</span>}
              {fresh === null ? null : fresh > 0 ? (
                <span className="ml-1 rounded bg-blue-100 px-1.5 text-xs font-semibold text-blue-900 tabular-nums">
                  {formatCount(fresh)} new
                </span>
              ) : (
                <span className="sr-only">, no new matches</span>
              )}
            </a>
          )
        })}
        <button
          ref={manageButton}
          type="button"
          className="text-slate-700 underline underline-offset-2"
          aria-expanded={managing}
          aria-controls="saved-views-manage"
          onClick={() => {
            setManaging(!managing)
          }}
        >
          Manage
        </button>
      </nav>
      {managing ? (
        <section
          id="saved-views-manage"
          aria-label="Manage saved views"
          className="mt-2 rounded border border-slate-200 bg-white p-3 text-sm"
        >
          <ul className="flex flex-col gap-2">
            {views.data.map((v) => (
              <ManageRow
                key={v.id}
                view={v}
                onChanged={() => void refresh()}
                onDeleted={() => {
                  // The last view gone takes the whole row with it, Manage too: focus goes to the page's heading.
                  if (views.data.length > 1) manageButton.current?.focus()
                  else focusPageHeading()
                }}
              />
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  )
}

/** The page's own heading takes focus (made focusable for it, as the pages that focus it on arrival make theirs). */
function focusPageHeading() {
  const h1 = document.querySelector<HTMLElement>('main h1')
  if (!h1) return
  if (!h1.hasAttribute('tabindex')) h1.tabIndex = -1
  h1.focus()
}

function ManageRow({ view, onChanged, onDeleted }: { view: SavedView; onChanged: () => void; onDeleted: () => void }) {
  const [mode, setMode] = useState<'show' | 'rename' | 'delete'>('show')
  const [name, setName] = useState(view.name)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  // The rename form and the delete question stand in for the row's buttons: closing them gives focus back to the one that opened them.
  const { refFor, returnTo } = useReturnFocus<'rename' | 'delete'>()
  const what = `${view.shared ? 'shared with the team' : 'only you'}; ${view.range ? RANGE_LABELS[view.range].toLowerCase() : 'its own dates'}`

  const close = (from: 'rename' | 'delete') => {
    returnTo(from)
    setMode('show')
  }
  async function act(work: () => Promise<unknown>, after: () => void) {
    setBusy(true)
    setError(null)
    try {
      await work()
      after()
      onChanged()
    } catch (err) {
      setError(toApiError(err).message)
    } finally {
      setBusy(false)
    }
  }
  const rename = (e: SubmitEvent) => {
    e.preventDefault()
    void act(
      () => renameView(view.id, name),
      () => {
        close('rename')
      },
    )
  }

  return (
    <li className="flex flex-wrap items-center gap-2">
      {mode === 'rename' ? (
        <form
          className="flex flex-wrap items-center gap-2"
          onSubmit={rename}
          aria-label={`Rename ${view.name}`}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault()
              close('rename')
            }
          }}
        >
          <label className="flex items-center gap-1">
            New name
            <input
              // Opened by Rename: typing goes here.
              autoFocus
              className="input w-56 max-w-full"
              value={name}
              maxLength={VIEW_NAME_MAX}
              required
              onChange={(e) => {
                setName(e.target.value)
              }}
            />
          </label>
          <button type="submit" className="btn" disabled={busy}>
            Save name
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => {
              close('rename')
            }}
          >
            Cancel
          </button>
        </form>
      ) : (
        <>
          <span className="font-medium">{view.name}</span>
          <span className="text-slate-600">{view.mine ? what : `shared by ${view.owner}`}</span>
        </>
      )}
      {view.mine && mode === 'show' ? (
        <>
          <button
            ref={refFor('rename')}
            type="button"
            className="btn"
            aria-label={`Rename ${view.name}`}
            onClick={() => {
              setName(view.name)
              setMode('rename')
            }}
          >
            Rename
          </button>
          <button
            type="button"
            className="btn"
            disabled={busy}
            aria-label={view.shared ? `Make private: ${view.name}` : `Share with team: ${view.name}`}
            onClick={() =>
              void act(
                () => shareView(view.id, !view.shared),
                () => undefined,
              )
            }
          >
            {view.shared ? 'Make private' : 'Share with team'}
          </button>
          <button
            ref={refFor('delete')}
            type="button"
            className="btn"
            aria-label={`Delete ${view.name}`}
            onClick={() => {
              setMode('delete')
            }}
          >
            Delete
          </button>
        </>
      ) : null}
      {mode === 'delete' ? (
        <span role="group" aria-label={`Delete ${view.name}?`}>
          <InlineConfirm
            confirmLabel="Yes, delete"
            busy={busy}
            onConfirm={() => act(() => deleteView(view.id), onDeleted)}
            onCancel={() => {
              close('delete')
            }}
          >
            Delete it{view.shared ? ' for the whole team' : ''}?
          </InlineConfirm>
        </span>
      ) : null}
      {error ? (
        <p role="alert" className="w-full text-red-800">
          {error}
        </p>
      ) : null}
    </li>
  )
}
