import type { OnOpen } from '../db/open.ts'
import { journalPathOf, replayJournal } from './log-journal.ts'

/**
 * The access room's step when the database opens (openDb's onOpen): access-log entries a PGlite
 * server journaled and did not put in before it stopped go in before anyone (the command line
 * too) reads or extends the chain. Every opener that may read or extend the chain registers it:
 * rooms.ts and the users command.
 */
export const accessOnOpen: OnOpen = async (db, log) => {
  const journal = journalPathOf(db)
  if (journal) await replayJournal(db, journal, log)
}
