import { notifyManager, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { Component, type ReactNode } from 'react'
import { isRetryable, type ApiError } from '../api/errors'
import { ReloadButton } from '../components/alert'

/**
 * Retry policy: transport failures and 5xx (`unreachable`) are retried with backoff, at most
 * 3 calls per user action; rejections, bad requests, unreadable answers and timeouts are not
 * (a timeout already waited API_TIMEOUT_MS, retrying it would triple the wait).
 */
export function createQueryClient() {
  // Query results reach components in a microtask instead of the default setTimeout(0): a
  // response is parsed, rendered and committed in one task, with no gap (often an animation
  // frame) between the data arriving and the rows being built. Updates are still batched.
  notifyManager.setScheduler(queueMicrotask)
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failures, err) => failures < 2 && isRetryable(err),
        retryDelay: (attempt, err) => Math.min((err as ApiError | undefined)?.extra.retryAfterMs ?? 400 * 3 ** attempt, 5000),
        refetchOnWindowFocus: false,
      },
    },
  })
}

export function Providers({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={client}>
      <ErrorBoundary>{children}</ErrorBoundary>
    </QueryClientProvider>
  )
}

class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null }
  static getDerivedStateFromError(error: Error) {
    return { error }
  }
  override render() {
    if (!this.state.error) return this.props.children
    return (
      <main className="mx-auto max-w-xl p-8">
        <div role="alert" className="rounded border border-red-300 bg-red-50 p-4 text-red-900">
          <h1 className="text-lg font-semibold">Something went wrong in this page</h1>
          <p className="mt-1 text-sm">The page hit an unexpected error. Nothing was changed on the account.</p>
          <ReloadButton className="mt-3" />
        </div>
      </main>
    )
  }
}
