/**
 * Playwright's global setup: waits until every e2e stack answers. playwright.config.ts gives its
 * web servers no `url`, so Playwright starts them all at once instead of one after another
 * (each stack's start is seconds of CPU: opening PGlite, initdb and every migration on the plain
 * stack's empty directory, tsx compiling the server); this is where the run waits for them instead.
 * A port already taken makes that stack's server exit; the run then talks to whatever holds the
 * port, as Playwright's reuseExistingServer would.
 */
export default async function stacksReady(config: { metadata?: { stackUrls?: string[] } }): Promise<void> {
  const urls = config.metadata?.stackUrls ?? []
  const deadline = Date.now() + 120_000
  await Promise.all(
    urls.map(async (url) => {
      for (;;) {
        try {
          const res = await fetch(url, { signal: AbortSignal.timeout(2_000) })
          await res.arrayBuffer()
          if (res.status === 200) return
        } catch {
          /* not listening yet */
        }
        if (Date.now() > deadline) throw new Error(`e2e stack ${url} did not answer within 120 s (its output is above)`)
        await new Promise((r) => setTimeout(r, 200))
      }
    }),
  )
}
