import type { ColumnVisibilityState } from '@tanstack/react-table'
import { useMemo } from 'react'
import type { SetParams } from '../../lib/navigation'

/**
 * The columns the URL's `hide` names (the number column always shows), as the table wants them,
 * and the setter that writes a choice back to the URL. Memoised on the URL string, not on the
 * (new every render) params object, so the table's cells do not re-render for nothing.
 */
export function useHiddenColumns(hideParam: string, setParams: SetParams<'/'>) {
  const hidden = useMemo(() => new Set(hideParam.split(',').filter((id) => id && id !== 'number')), [hideParam])
  const columnVisibility = useMemo<ColumnVisibilityState>(() => Object.fromEntries([...hidden].map((id) => [id, false])), [hidden])
  const setHidden = (next: ReadonlySet<string>) => setParams({ hide: [...next].join(',') || null })
  return { hidden, columnVisibility, setHidden }
}
