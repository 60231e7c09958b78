/**
 * At most `size` callers inside at once; the rest wait, first come first served. The index's
 * reads go through one at the door (proxy/index/routes.ts).
 */
export type Fifo = <T>(fn: () => Promise<T>) => Promise<T>

export function fifo(size: number): Fifo {
  let inside = 0
  const waiting: Array<() => void> = []
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    // A slot freed is handed to the first waiting (`inside` unchanged), so none who came later overtakes it.
    if (inside < size) inside++
    else await new Promise<void>((go) => waiting.push(go))
    try {
      return await fn()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else inside--
    }
  }
}
