/**
 * How a stored message's texts are read back. The index stores each distinct body and status text
 * once (index_bodies, index_statuses) and only their ids in index_messages; every room that reads
 * messages (the index's queries, the desk's reports) reads them through these fragments, so the
 * layout has one description.
 */

/**
 * A message's text: index_bodies' by body_id (the sync stores each distinct text once there and
 * none in the message row); the row's own for rows written before that (or with no body id).
 */
export const BODY_OF = (m: string) => `COALESCE(${m}.body, (SELECT b.body FROM index_bodies b WHERE b.id = ${m}.body_id))`
/** A message's status text: the row's own (rows written before migration 410), else index_statuses' by status_id. */
export const STATUS_OF = (m: string) => `COALESCE(${m}.status, (SELECT s.status FROM index_statuses s WHERE s.id = ${m}.status_id))`
