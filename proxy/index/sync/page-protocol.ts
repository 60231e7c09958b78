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

/**
 * Texts as one run of UTF-8 bytes, text i ending at ends[i]: moved between threads rather than
 * copied, and read one at a time (textAt). As an array of strings, a million-message walk's
 * record identities were a million strings made on the server's thread by structured clone:
 * about 60 MB that lived long enough to reach the old generation, the most of what it promoted,
 * and a full collection every few hundred milliseconds.
 */
export interface PackedTexts {
  bytes: Uint8Array<ArrayBuffer>
  ends: Int32Array<ArrayBuffer>
}

/** Text i of `t` (0 ≤ i < t.ends.length). */
export function textAt(t: PackedTexts, i: number): string {
  const { bytes, ends } = t
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', i === 0 ? 0 : ends[i - 1], ends[i])
}

/** A page held by the worker: its envelope, each record's identity, and where the envelope's newest message is (-1: not in it). */
export type Parsed =
  | { kind: 'page'; meta: PageMeta; ids: PackedTexts; newestIndex: number }
  /** Not the spec's success object: the forwarder must judge the bytes, sent back (they may have been moved to the worker). */
  | { kind: 'judge'; bytes: Uint8Array }
  /** The spec's success object, but not a page the index can place (parse.ts PageError's message). */
  | { kind: 'invalid'; message: string }

export type FromWorker = { id: number; parsed: Parsed } | { id: number; payload: CopyPayload } | { id: number; error: string }
