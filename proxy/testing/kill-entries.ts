import type { ListedEntry } from '../watch/types.ts'

/** The listings watch-child.ts stores and its test checks: listing i's webhooks alternate between two addresses. */
export const KILL_T0 = Date.parse('2026-03-02T14:00:00Z')
export const KILL_STEP_MS = 5 * 60_000
export const killWebhook = (i: number) => (i % 2 === 0 ? 'https://hooks.example.com/a' : 'https://hooks.example.com/b')

export function killEntries(count: number, i: number): ListedEntry[] {
  return Array.from({ length: count }, (_, k) => ({
    number: String(18_005_550_000 + k),
    tid: `T${k}`,
    type: 'local',
    webhook: killWebhook(i),
    dlr: 'https://hooks.example.com/dlr',
  }))
}
