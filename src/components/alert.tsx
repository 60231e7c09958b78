import { ERROR_WORDS, toApiError } from '../api/errors'

/** An error the user can act on: what went wrong (words from the kind), the details, and Retry. */
export function ErrorAlert({ error, onRetry, retrying, keptData }: { error: unknown; onRetry: () => void; retrying?: boolean; keptData?: boolean }) {
  const err = toApiError(error)
  const words = ERROR_WORDS[err.kind]
  return (
    <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900" data-error-kind={err.kind}>
      <p className="font-semibold">{words.title}</p>
      <p className="mt-0.5 text-sm">{err.message}</p>
      <p className="mt-0.5 text-sm">
        {words.hint}
        {keptData ? ' The rows below are from the last successful load.' : ''}
      </p>
      <button type="button" className="btn mt-2" onClick={onRetry} disabled={retrying}>
        {retrying ? 'Retrying…' : 'Retry'}
      </button>
    </div>
  )
}
