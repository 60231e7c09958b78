import type { Db } from '../db/types.ts'
import { flushDesk, forgetDesk } from './refresh.ts'
import { warmDeskFacts, writeDeskCounts } from './refresh-facts.ts'

/**
 * The desk's part in the message index's life, which the composition root (rooms.ts) hands to the
 * index: the desk's tables move with each stored batch, each finished sync and each forget, in the
 * index's own transactions. The index declares these moments (index/hooks.ts); neither room
 * imports the other.
 */
export const deskIndexHooks = {
  warm: warmDeskFacts,
  batchStored: writeDeskCounts,
  numberSynced: (db: Db, number: string) => flushDesk(db, [number]),
  forgetting: forgetDesk,
}
