import type { DeskCounts } from '../../contract/desk/facts.ts'
import type { Db, Queryable } from '../db/types.ts'

/**
 * What the index tells the rooms built over its messages (the support desk), handed in by the
 * composition root (rooms.ts). The index calls each at the point where another room's tables must
 * move with its own, inside the index's transaction where one is named, and knows nothing of
 * those tables; the other room knows nothing of the index's code.
 */
export interface IndexHooks {
  /** Before the first sync: warms what a batch prepared on the server's thread would otherwise pay for there. */
  warm: () => Promise<void>
  /**
   * Inside a stored batch's transaction, after its rows went in with their facts: the batch's
   * counts (contract/desk/facts.ts deskCounts, worked out from its rows alone).
   */
  batchStored: (tx: Queryable, number: string, counts: DeskCounts) => Promise<void>
  /** A number's sync has stored its last batch: what needs order over the touched threads is recomputed once. */
  numberSynced: (db: Db, number: string) => Promise<unknown>
  /**
   * Inside the transaction that deletes a number's messages (every number's when null): what was
   * derived from them goes with them. A re-walk's wipe keeps what people recorded (keepHandled).
   */
  forgetting: (tx: Queryable, number: string | null, opts?: { keepHandled?: boolean }) => Promise<void>
}
