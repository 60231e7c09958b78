import { toApiError } from '../../api/errors'

/**
 * The words for an error on the access pages. /api/auth/* writes its messages for people ("Too
 * many failed sign-ins for this name from your address; try again in 30 seconds."), so they are shown as they are.
 */
export function problemText(error: unknown): string {
  const err = toApiError(error)
  if (err.kind === 'unreachable') return 'The Switchboard server could not be reached. Check your connection and try again.'
  return err.message
}

export function Problem({ title, message }: { title: string; message: string }) {
  return (
    <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-red-900">
      <p className="font-semibold">{title}</p>
      <p className="mt-0.5 text-sm">{message}</p>
    </div>
  )
}
