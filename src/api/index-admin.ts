import { INDEX_PATHS } from '../../contract/index-api'
import { postJson } from './client'

/** The index's two changes: start syncs, and forget what is stored (admins; the server checks). */
export async function startSync(target: { all: true } | { number: string; tid?: string }): Promise<void> {
  await postJson(INDEX_PATHS.sync, target)
}

export async function forgetIndexed(target: { all: true } | { number: string }): Promise<number> {
  const json = (await postJson(INDEX_PATHS.forget, target)) as { forgotten?: unknown }
  return typeof json.forgotten === 'number' ? json.forgotten : 0
}
