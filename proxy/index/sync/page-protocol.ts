import type { PageMeta } from '../parse.ts'
import type { BatchOf, CopyPayload } from './prepare.ts'

/**
 * The messages between a full walk and its page worker (page-worker.ts, pages.ts). A walk is
 * named by `walk`; the worker holds its parsed pages by `id` until they are taken or dropped,
 * and the rows taken, in order, until the walk asks for them as a batch.
 */
export type ToWorker =
  /** Decode, parse and hold a page of positions start…; answered with a Parsed. */
  | { t: 'parse'; walk: string; id: number; start: number; bytes: Uint8Array }
  /** Moves the page's records [from, to) (by position in the page) into the walk's batch, and lets the page go. */
  | { t: 'take'; walk: string; id: number; ranges: Array<[number, number]> }
  /** Lets a page go without taking from it. */
  | { t: 'drop'; walk: string; id: number }
  /** The batch's rows as a COPY payload (prepare.ts payloadOf), the batch emptied; answered with a Built. */
  | { t: 'build'; walk: string; id: number; of: BatchOf }
  /** The walk is over: everything it held goes. */
  | { t: 'end'; walk: string }

/** A page held by the worker: its envelope, each record's identity, and where the envelope's newest message is (-1: not in it). */
export type Parsed =
  | { kind: 'page'; meta: PageMeta; ids: string[]; newestIndex: number }
  /** Not the spec's success object: the forwarder must judge the bytes, sent back (they may have been moved to the worker). */
  | { kind: 'judge'; bytes: Uint8Array }
  /** The spec's success object, but not a page the index can place (parse.ts PageError's message). */
  | { kind: 'invalid'; message: string }

export type FromWorker = { id: number; parsed: Parsed } | { id: number; payload: CopyPayload } | { id: number; error: string }
