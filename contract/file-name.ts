import { fileStem, type Subject } from './vocabulary.ts'

/**
 * Export file names, on the server (Content-Disposition) and in the browser alike: the subject's
 * stem (`switchboard-search`, contract/vocabulary.ts: the access log names the export by the same
 * subject), then lower-case slugs joined by dashes, at most FILE_NAME_MAX characters. The scope and the row count always
 * stay; filters are kept in order while they fit, then the day of the export, so a long search names what it can rather than
 * running to 120 characters that file dialogs and download bars cut anyway.
 */

export const FILE_NAME_MAX = 64

export const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')

export function fitFileName(
  o: { subject: Subject; scope: string; filters: string[]; rows: number | null; ext: string; date?: Date },
  max = FILE_NAME_MAX,
): string {
  const rows = o.rows !== null ? `-${o.rows}-rows` : ''
  const ext = `.${o.ext}`
  let name = `${fileStem(o.subject)}-${slug(o.scope) || 'all'}`
  for (const f of o.filters.map(slug).filter(Boolean)) if (name.length + 1 + f.length + rows.length + ext.length <= max) name += `-${f}`
  // The day of the export comes last: what the file holds matters more than when it was taken.
  const day = o.date ? `-${o.date.toISOString().slice(0, 10)}` : ''
  if (name.length + rows.length + day.length + ext.length <= max) name += rows + day
  else name += rows
  return (name + ext).slice(-max)
}
