import type { IndexActions } from './use-index-actions'

/** The Index page's actions at rest, doing nothing: for rendering its parts in unit tests. */
export const IDLE_ACTIONS: IndexActions = {
  busy: false,
  error: null,
  notice: '',
  confirming: null,
  setConfirming: () => undefined,
  indexAll: () => Promise.resolve(),
  syncOne: () => Promise.resolve(),
  forget: () => Promise.resolve(),
}
