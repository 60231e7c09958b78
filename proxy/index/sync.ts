/**
 * The message index's sync, by job under ./sync/: the queue (queue.ts), leases (leases.ts),
 * fetching pages (fetch.ts), the full walk (walk.ts), the catch-up (catch-up.ts), storing
 * (store.ts, sql.ts, ../columns.ts) and the secondary indexes (indexes.ts).
 */
export { createSyncer } from './sync/queue.ts'
export { OVERLAP } from './sync/catch-up.ts'
export { DESK_INDEXES, ensureIndexes, SECONDARY_INDEXES } from './sync/indexes.ts'
export { INSERT_SQL } from './columns.ts'
export { overallProgress } from './sync/progress.ts'
export type { Syncer, SyncOptions, SyncProgress, SyncRequest, SyncStats } from './sync/types.ts'
