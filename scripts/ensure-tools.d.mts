/** Types of scripts/ensure-tools.mjs for the TypeScript that imports it (e2e/browser.ts). */
export function playwrightOwnChromium(): string | undefined
export function systemChromium(opts?: { shellOnly?: boolean }): string | undefined
export function ensureBrowser(): { path: string; how: string }
export function findPostgresBin(): string | undefined
export function ensurePostgres(): { bin: string; how: string }
export function ensurePdfText(): { path: string; how: string }
