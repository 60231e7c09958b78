// Compatibility shim: routing primitives moved to src/lib/router.tsx and path builders to
// src/lib/paths.ts so features need not import src/app. Remove once no feature imports this.
export { Link, navigate, useLocation, useLocationString, useSetParams } from '../lib/router'
export { historyPath } from '../lib/paths'
