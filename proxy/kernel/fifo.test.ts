import { describe, expect, it } from 'vitest'
import { fifo } from './fifo.ts'

/** A promise and its resolve, to hold a caller inside the door until the test lets it go. */
function held() {
  let release!: () => void
  const done = new Promise<void>((r) => (release = r))
  return { done, release }
}

const flush = () => new Promise((r) => setImmediate(r))

describe('fifo: a door that lets a few in at once, the rest in the order they came', () => {
  it('never has more than its size inside, and lets the waiting in first come first served', async () => {
    const door = fifo(2)
    let inside = 0
    let most = 0
    const order: number[] = []
    const holds = Array.from({ length: 6 }, held)
    const calls = holds.map((h, i) =>
      door(async () => {
        inside++
        most = Math.max(most, inside)
        order.push(i)
        await h.done
        inside--
        return i
      }),
    )
    await flush()
    expect(order).toEqual([0, 1])
    // Let the later ones go first: a slot freed goes to the first still waiting (2), not to whoever asks next.
    holds[1]!.release()
    await flush()
    expect(order).toEqual([0, 1, 2])
    const late = door(async () => {
      order.push(99)
      return 99
    })
    for (const h of holds) h.release()
    expect(await Promise.all([...calls, late])).toEqual([0, 1, 2, 3, 4, 5, 99])
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 99])
    expect(most).toBe(2)
  })

  it('frees the slot of a caller that throws', async () => {
    const door = fifo(1)
    await expect(door(() => Promise.reject(new Error('statement failed')))).rejects.toThrow('statement failed')
    expect(await door(async () => 'next')).toBe('next')
  })
})
