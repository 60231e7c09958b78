import { stringifySearch } from './route-params'

/**
 * The Callbacks page narrowed to one number: its history of changes, as a plain address, so the
 * link survives reload and sharing. The numbers page and the Callbacks page both link here.
 */
export const callbackHistoryHref = (number: string) => `/callbacks${stringifySearch({ tab: 'changes', number: number.replace(/\D/g, '') })}`
