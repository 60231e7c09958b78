import { useMutation, useQueryClient } from '@tanstack/react-query'
import { ALERTS_KEY, sendWitnessNow, type AlertsPageData, type WitnessSent } from '../../api/alerts'
import { ErrorAlert } from '../../components/alert'
import { when } from './alert-parts'

/**
 * Witnesses of the access log: channels that get its signed head once a day and when an admin
 * asks, so a copy the server's own operators cannot edit exists elsewhere. Without a signing key
 * the server has no signed head, and the page says that nothing goes.
 */

function outcome(r: WitnessSent): string {
  const failed = r.sent.filter((s) => !s.ok)
  const head = `The signed head of entry ${r.head.seq} went to ${r.sent.length} witness${r.sent.length === 1 ? '' : 'es'}`
  if (failed.length === 0) return `${head}: delivered.`
  return `${head}; not delivered to ${failed.map((f) => `${f.name} (${f.error ?? 'no answer'})`).join(', ')}: the outbox tries again.`
}

export function WitnessPanel({ data, maySend }: { data: AlertsPageData; maySend: boolean }) {
  const client = useQueryClient()
  const send = useMutation({
    mutationFn: sendWitnessNow,
    onSettled: () => void client.invalidateQueries({ queryKey: ALERTS_KEY }),
  })
  const witnesses = data.channels.filter((c) => c.witness && c.enabled)
  return (
    <section aria-labelledby="witness-heading" className="mt-5 rounded border border-slate-200 p-3 text-sm">
      <h2 id="witness-heading" className="mb-1 text-lg font-semibold">
        Witnesses of the access log
      </h2>
      {data.witness.signing ? (
        <>
          <p>
            Once a day, and when an admin asks, the access log’s signed head goes to every channel that is on and marked as a witness: the
            entry number, its hash, the time, the signature and the public key that checks it. No customer data.
          </p>
          <p className="mt-1">
            {witnesses.length === 0 ? 'No channel is a witness yet.' : `Witnesses: ${witnesses.map((c) => c.name).join(', ')}.`} Last daily
            notice: {data.witness.lastDaily ? when(data.witness.lastDaily) : 'not yet'}.
          </p>
          {maySend ? (
            <button
              type="button"
              className="btn mt-2"
              disabled={send.isPending || witnesses.length === 0}
              onClick={() => {
                send.mutate()
              }}
            >
              {send.isPending ? 'Sending…' : 'Send the signed head now'}
            </button>
          ) : null}
        </>
      ) : (
        <p>
          The server has no signing key (LOG_SIGNING_KEY_FILE is not set), so the access log has no signed head: no daily notice goes to
          witnesses, and there is nothing to send on demand.
        </p>
      )}
      <p role="status" className="mt-1 min-h-5">
        {send.data ? outcome(send.data) : null}
      </p>
      {send.error ? <ErrorAlert error={send.error} doing="sending the signed head" takeFocus /> : null}
    </section>
  )
}
