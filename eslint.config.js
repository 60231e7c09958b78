import js from '@eslint/js'
import { createNodeResolver, importX } from 'eslint-plugin-import-x'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/** Under typescript-eslint's strictest typed set: the shared contract first, then directory by directory. */
const STRICT = [
  'contract/**/*.ts',
  'src/app/**/*.{ts,tsx}',
  'src/lib/**/*.{ts,tsx}',
  'src/api/**/*.{ts,tsx}',
  'src/components/**/*.{ts,tsx}',
  'src/features/**/*.{ts,tsx}',
]

/** The server's feature rooms: each imports the kernel, db and exports, never another room. */
const ROOMS = ['index', 'desk', 'views', 'media', 'access', 'watch', 'alerts']
/** The only modules that wire rooms together (the composition root, the listener, the app). */
const COMPOSERS = ['./proxy/rooms.ts', './proxy/server.ts', './proxy/app.ts']
/**
 * Test support stands outside the doors: an end-to-end test composes rooms the way rooms.ts does.
 * proxy/testing/ holds what tests share (stacks, engines, receivers, certificates, the children a
 * test kills mid-write); the build leaves it out (tsconfig.server.json) and nothing in a room imports it.
 */
const TEST_SUPPORT = ['proxy/**/*.test.ts', 'proxy/testing/**']

export default tseslint.config(
  { ignores: ['dist', 'build', 'node_modules', '.test-results', '.bench', 'test-results', '.switchboard-data'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Typed rules (the reason TypeScript is pinned to 6.0): floating and misused promises, awaiting
  // what is not a promise.
  {
    files: ['src/**/*.{ts,tsx}', 'proxy/**/*.ts', 'contract/**/*.ts', 'e2e/**/*.ts', 'bench/**/*.mts', 'scripts/**/*.mts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  // STRICT holds typescript-eslint's strictest typed set (numbers allowed in template strings);
  // the other directories are to follow one at a time.
  ...tseslint.configs.strictTypeChecked.map((c) => ({ ...c, files: STRICT })),
  { files: STRICT, rules: { '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }] } },
  // In tests a wrong guess fails the test anyway, and expect's matchers are typed `any`.
  {
    files: ['**/*.test.{ts,tsx}'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty-pattern': 'off',
      // Matching control characters is the point of several security checks here.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      // eslint-plugin-react-hooks v7's whole recommended set (the React Compiler's rules included).
      ...reactHooks.configs.recommended.rules,
      // A note that the React Compiler would skip components using TanStack Virtual; this build
      // does not run the compiler, so it is not a finding.
      'react-hooks/incompatible-library': 'off',
      // Untrusted text is rendered as text, never as markup (docs/security.md, the data that renders as text).
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render untrusted data as text.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/proxy/**'], message: 'The SPA never imports proxy code.' }],
        },
      ],
    },
  },
  // Layers only point down (bulletproof-react's restricted zones): app → features → components/lib/api → contract.
  // Features never import each other or the app; shared pieces never import features or the app.
  {
    files: ['src/features/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/proxy/**'], message: 'The SPA never imports proxy code.' },
            { group: ['**/app/**'], message: 'Features never import src/app; routing primitives live in src/lib.' },
            // `../other-feature/x` from a feature's own folder; `../../lib/x` is fine.
            {
              regex: '^\\.\\./(?!\\.\\.)[^/]+/',
              message: 'Features never import each other; shared pieces go to src/components or src/lib.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/lib/**', 'src/components/**', 'src/api/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/proxy/**'], message: 'The SPA never imports proxy code.' },
            { group: ['**/features/**', '**/app/**'], message: 'Shared code (lib, components, api) never imports features or the app.' },
          ],
        },
      ],
    },
  },
  {
    files: ['contract/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/**', '**/proxy/**', 'react', 'react-dom'],
              message: 'The contract stands alone: both sides import it, it imports neither.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['proxy/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/src/**'], message: 'The proxy never imports SPA code.' }] }] },
  },
  // Import guards (eslint-plugin-import-x, resolving the `./x.ts` and extensionless imports the
  // way Node and Vite do): no import cycles on either side.
  {
    files: ['src/**/*.{ts,tsx}', 'proxy/**/*.ts', 'contract/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.mts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs'] })],
    },
    rules: {
      // A lazy chunk that registers itself with its loader on evaluation (data-table's
      // measured-table, fetched by measured-engine with import()) is the one deliberate loop;
      // a static cycle is still an error.
      'import-x/no-cycle': ['error', { ignoreExternal: true, allowUnsafeDynamicCyclicDependency: true }],
    },
  },
  // The server's doors, as src/ has them: a room reacts to another only through a hook or event
  // that rooms.ts hands it; the kernel, the database and the export machinery know no room.
  {
    files: ['proxy/**/*.ts'],
    ignores: TEST_SUPPORT,
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...ROOMS.map((room) => ({
              target: `./proxy/${room}`,
              from: [...ROOMS.filter((r) => r !== room).map((r) => `./proxy/${r}`), ...COMPOSERS],
              message: `proxy/${room} imports no other room and not the composition root: take what it needs as a hook from rooms.ts, or move the shared piece to proxy/kernel or proxy/exports.`,
            })),
            ...['kernel', 'db', 'exports'].map((base) => ({
              target: `./proxy/${base}`,
              from: [...ROOMS.map((r) => `./proxy/${r}`), ...COMPOSERS],
              message: `proxy/${base} is shared by every room and imports none of them (nor the composition root): take a hook or an option instead.`,
            })),
            {
              target: './proxy',
              from: './proxy/testing',
              message: 'proxy/testing is test support, left out of the build: production code never imports it.',
            },
          ],
        },
      ],
    },
  },
  // Function length (what scripts/function-lengths.mjs lists, from a function's first line to its
  // last): a component or handler past this holds several things. The sync's steps stay shorter,
  // one job per file.
  {
    files: ['src/**/*.{ts,tsx}', 'proxy/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  {
    files: ['proxy/index/sync/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  // File length: a file past 500 lines of code holds several things. Tests and data tables (the
  // classifier's corpora, the area codes) are not counted; comments and blank lines are not either.
  {
    files: ['src/**/*.{ts,tsx}', 'proxy/**/*.ts', 'contract/**/*.ts'],
    ignores: ['**/*.test.{ts,tsx}', 'contract/desk/*-corpus.ts', 'contract/desk/area-codes.ts'],
    rules: { 'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }] },
  },
)
