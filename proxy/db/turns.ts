/**
 * Callers of the database continued one per turn of the event loop, in the order their answers
 * came (both engines: pglite-client.ts's lanes, open.ts's gate for PostgreSQL).
 *
 * A caller's continuation is the rest of its request: rows read, its answer built, compressed and
 * written, about a millisecond. Answers often arrive together (Node hands every message waiting on
 * PGlite's worker port to one callback, and every PostgreSQL socket that is readable to one poll),
 * and each continuation ran at once: under 50 searchers twenty in a row held every other request,
 * /api/meta's among them, for tens of milliseconds. Continued one per turn, the server reads its
 * sockets between two. The database's own turn is not held back: a unit is done, and the next
 * statement sent, before its caller's turn comes.
 */
const waiting: Array<() => void> = []
let turn: NodeJS.Immediate | null = null

function nextTurn() {
  turn = null
  const go = waiting.shift()
  if (waiting.length) turn = setImmediate(nextTurn)
  go?.()
}

/** Runs `go` on a turn of its own, after every one handed here before it. */
export function later(go: () => void): void {
  waiting.push(go)
  turn ??= setImmediate(nextTurn)
}

/** Resolves on a turn of its own (see `later`). */
export const ownTurn = (): Promise<void> => new Promise((resolve) => later(resolve))
