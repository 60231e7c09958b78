/**
 * The address the app was opened at, as typed or followed, before the router tidies it (a field
 * its schema cannot read is left out of the address at once, src/lib/route-params.ts). A page
 * reads it to say what it left out (src/components/dropped-params.tsx). Noted once at start-up;
 * links inside the app are typed and never carry such a field.
 */
let opened: { pathname: string; search: string } | null = null

/** Called at start-up, before the router first reads the address. */
export function noteOpenedLink(at: { pathname: string; search: string }): void {
  opened = { pathname: at.pathname, search: at.search }
}

/** The query string the app was opened with at `pathname`, if it was opened there and that was not yet let go. */
export function openedSearch(pathname: string): string | null {
  return opened && opened.pathname === pathname ? opened.search : null
}

/** Done with it: the page it was opened at has been left. */
export function forgetOpenedLink(): void {
  opened = null
}
