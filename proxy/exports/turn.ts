import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * Until a waiting export's turn comes, or the person cancels it, or the client goes away (a
 * closed tab, the browser's downloads list): whichever is first. The request holds no database
 * connection meanwhile, only its socket.
 */
export function turnOf(req: IncomingMessage, res: ServerResponse, turn: Promise<void>, cancel?: AbortSignal) {
  return new Promise<'turn' | 'cancelled' | 'gone'>((resolve) => {
    const done = (why: 'turn' | 'cancelled' | 'gone') => {
      res.off('close', onGone)
      req.off('aborted', onGone)
      cancel?.removeEventListener('abort', onCancel)
      resolve(why)
    }
    const onGone = () => done('gone')
    const onCancel = () => done('cancelled')
    if (cancel?.aborted) return done('cancelled')
    if (res.destroyed) return done('gone')
    res.on('close', onGone)
    req.on('aborted', onGone)
    cancel?.addEventListener('abort', onCancel, { once: true })
    void turn.then(() => done('turn'))
  })
}
