import { template } from './pglite-template.ts'

/** vitest's globalSetup: the PGlite template made once, in the main process, before any worker needs it. */
export default async function setup(): Promise<void> {
  await template()
}
