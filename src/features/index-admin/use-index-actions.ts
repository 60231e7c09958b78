import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { forgetIndexed, startSync } from '../../api/index-admin'
import { indexKeys, type NumberIndexStatus } from '../../api/index-api'
import { formatCount } from '../../lib/count'
import { formatPhone } from '../../lib/phone'

/**
 * The index page's actions (index all, sync one, forget one or all) with what they leave on the
 * page: busy while one runs, the notice it ends with or its error, and which forget is being confirmed
 * (`'*'` for all of them).
 */
export function useIndexActions() {
  const client = useQueryClient()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [notice, setNotice] = useState('')
  const [confirming, setConfirming] = useState<string | null>(null)

  const act = async (what: () => Promise<string>) => {
    setBusy(true)
    setError(null)
    try {
      setNotice(await what())
      await client.invalidateQueries({ queryKey: indexKeys.all })
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
      setConfirming(null)
    }
  }
  const indexAll = () =>
    act(async () => {
      await startSync({ all: true })
      return 'Indexing every number of the account has started.'
    })
  const syncOne = (n: NumberIndexStatus) =>
    act(async () => {
      await startSync({ number: n.number, tid: n.tid || undefined })
      return `Sync of ${formatPhone(n.number)} started.`
    })
  const forget = (number: string | null) =>
    act(async () => {
      const gone = await forgetIndexed(number ? { number } : { all: true })
      return `Forgot ${formatCount(gone)} messages ${number ? `of ${formatPhone(number)}` : 'of every number'}.`
    })
  return { busy, error, notice, confirming, setConfirming, indexAll, syncOne, forget }
}

export type IndexActions = ReturnType<typeof useIndexActions>
