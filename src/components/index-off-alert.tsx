import { toApiError } from '../api/errors'
import { ErrorAlert } from './alert'

/**
 * Why a page that needs the message index cannot show it. The index switched off (it answered
 * `index_off`, or its status says so) is how this server is set up, not a failure: a notice says
 * so plainly, for every page alike (it once said "search needs it" on the desk's pages, in red, as
 * an error "while loading" them). Any other failure to read the index's status is an error.
 */
export function IndexOffAlert({ error, where }: { error: unknown; where: string }) {
  if (error && toApiError(error).kind !== 'index_off') return <ErrorAlert error={error} where={where} />
  return (
    <div role="status" className="my-3 rounded border border-amber-300 bg-amber-50 p-3 text-amber-950" data-error-kind="index_off">
      <p className="font-semibold">The message index is off on this server</p>
      <p className="mt-0.5 text-sm">
        This page is built from the index. Whoever runs this Switchboard can turn it on (<code>INDEX=on</code>, the default).
      </p>
    </div>
  )
}
