import { queryOptions, type QueryClient } from '@tanstack/react-query'
import { VIEW_PATHS, VIEWS_ANSWERS, resolveRange, type RelativeRange, type SavedView } from '../../contract/saved-views'
import { zoneName } from '../lib/dates'
import { getJson, parseWire, postJson } from './client'

/**
 * Saved views (/api/views, proxy/views/routes.ts): Search page queries kept by name, with the
 * count of matches the index stored since the signed-in person last opened each one.
 */

export type { SavedView } from '../../contract/saved-views'

const WHO = "The Switchboard server's"

/** The browser's own zone: a view whose query shows local time counts its days there. */
export const browserZone = () => zoneName('local')

export const viewsQuery = () =>
  queryOptions({
    queryKey: ['views', 'list'],
    queryFn: async ({ signal }) => parseWire(VIEWS_ANSWERS.list, await getJson(VIEW_PATHS.list, {}, signal), WHO).views,
    staleTime: 30_000,
  })

/** Each view's new matches by id (null: not counted). The days of a view showing local time are the browser's. */
export const viewCountsQuery = (tz: string = browserZone()) =>
  queryOptions({
    queryKey: ['views', 'counts', tz],
    queryFn: async ({ signal }) => {
      const { counts } = parseWire(VIEWS_ANSWERS.counts, await getJson(VIEW_PATHS.counts, { tz }, signal), WHO)
      return new Map(counts.map((c) => [c.id, c.newMatches]))
    },
    // Each answer is a logged read (it counts customer messages): not on every focus of the window.
    staleTime: 30_000,
    refetchOnWindowFocus: false,
  })

/** The list and every cached count (any zone), for invalidation after a change. */
export const VIEWS_KEY = ['views'] as const

/**
 * After a change: the list and counts asked again. An answer still on its way is dropped first:
 * invalidating alone joins a first fetch (no data yet) instead of starting another, and that
 * answer, read before the change, would stand until the list goes stale.
 */
export async function refreshViews(client: QueryClient): Promise<void> {
  await client.cancelQueries({ queryKey: VIEWS_KEY })
  await client.invalidateQueries({ queryKey: VIEWS_KEY })
}

export async function createView(input: { name: string; shared: boolean; query: string; range: RelativeRange | null }): Promise<SavedView> {
  return parseWire(VIEWS_ANSWERS.one, await postJson(VIEW_PATHS.create, input), WHO).view
}

export async function renameView(id: string, name: string): Promise<SavedView> {
  return parseWire(VIEWS_ANSWERS.one, await postJson(VIEW_PATHS.rename, { id, name }), WHO).view
}

/** The owner shares the view with the team (true) or keeps it to themselves (false). */
export async function shareView(id: string, shared: boolean): Promise<SavedView> {
  return parseWire(VIEWS_ANSWERS.one, await postJson(VIEW_PATHS.share, { id, shared }), WHO).view
}

export async function deleteView(id: string): Promise<void> {
  await postJson(VIEW_PATHS.delete, { id })
}

/** Marks the view opened now by whoever is signed in: its count of new matches starts again. */
export async function openView(id: string): Promise<void> {
  await postJson(VIEW_PATHS.open, { id })
}

/**
 * The Search page address of a view, with a relative range turned into days now, in the zone the
 * view's query shows (`tz=utc`, else the browser's).
 */
export function viewHref(view: Pick<SavedView, 'query' | 'range'>, nowMs = Date.now()): string {
  const params = new URLSearchParams(view.query)
  if (view.range) {
    const zone = params.get('tz') === 'utc' ? 'UTC' : browserZone()
    const days = resolveRange(view.range, nowMs, zone)
    params.set('from', days.from)
    params.set('to', days.to)
  }
  const qs = params.toString()
  return `/search${qs ? `?${qs}` : ''}`
}
