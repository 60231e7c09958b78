import { PERMISSIONS } from '../../contract/roles.ts'
import { ProxyError } from '../errors.ts'
import { answering, route, type RouteSpec } from '../http-types.ts'
import { NO_PARAMS } from '../schema.ts'
import type { Channel, Delivery, LogHead } from './types.ts'
import { witnessChannels } from './witness.ts'
import { ALERTS_ANSWERS, type AlertsAnswer } from '../../contract/alerts-api.ts'

/**
 * POST /api/alerts/witness: an admin's "Send the signed head now". The access-log entry is stored
 * before anything is signed or sent (no entry, no notice: a 503), and the head is signed after it,
 * so the head a witness gets covers the request that sent it.
 */

export interface WitnessDeps {
  /** Whether the server has a signing key (LOG_SIGNING_KEY_FILE): without one there is no signed head. */
  signing: boolean
  /** When the daily notice last went (null: never). */
  lastDaily: () => Promise<Date | null>
  send: (to: readonly Channel[]) => Promise<{ head: LogHead; sent: Array<{ channel: Channel; delivery: Delivery }> }>
}

const conflict = (message: string) => new ProxyError(409, { kind: 'invalid_request', message })

export function witnessRoute(w: WitnessDeps, channels: () => Promise<Channel[]>): RouteSpec {
  return route({
    method: 'POST',
    path: '/api/alerts/witness',
    access: PERMISSIONS.sendLogWitness,
    reads: null,
    schema: NO_PARAMS,
    response: ALERTS_ANSWERS.witness,
    handle: answering(async (ctx) => {
      if (!w.signing)
        throw conflict(
          'There is no signed head to send: the server has no signing key. The operator sets LOG_SIGNING_KEY_FILE (an absolute path outside DATA_DIR) and restarts it.',
        )
      const to = witnessChannels(await channels())
      if (to.length === 0) throw conflict('No channel is a witness: mark a channel that is on as a witness of the access log first.')
      await ctx.audit('alerts.witness', { channels: to.map((c) => c.id) })
      const { head, sent } = await w.send(to)
      return {
        status: 200,
        body: {
          head: { seq: head.seq, hash: head.hash, at: head.at },
          sent: sent.map((s) => ({ channel: s.channel.id, name: s.channel.name, ...s.delivery })),
        } satisfies AlertsAnswer<'witness'>,
      }
    }),
  })
}
