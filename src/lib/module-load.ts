/**
 * Whether an error is a browser failing to load one of the app's own code chunks (a page loaded
 * on demand), not an answer from the server or the messaging service. It happens when the tab
 * was opened before Switchboard was updated (the old chunk names are gone) or when the connection
 * to Switchboard dropped; only a reload helps. Each engine words it its own way, and the error is
 * a plain TypeError, so its message is all there is to go by.
 */
const MODULE_LOAD = [
  /Failed to fetch dynamically imported module/i, // Chromium
  /error loading dynamically imported module/i, // Firefox
  /Importing a module script failed/i, // Safari
  /Unable to preload CSS/i, // Vite's preload helper, for a page's stylesheet
]

export function isModuleLoadError(err: unknown): boolean {
  return err instanceof Error && MODULE_LOAD.some((re) => re.test(err.message))
}
