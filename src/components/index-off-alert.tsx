import { ApiError } from '../api/errors'
import { ErrorAlert } from './alert'

/**
 * Why a page that needs the message index cannot show it: the status request's own error, or
 * (the index answered that it is off) the `index_off` words. One place for search, threads and charts.
 */
export function IndexOffAlert({ error, where }: { error: unknown; where: string }) {
  return <ErrorAlert error={error ?? new ApiError('index_off', 'The message index is off on this server.', 503)} where={where} />
}
