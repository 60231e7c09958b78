import js from '@eslint/js'
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
      // Untrusted text is rendered as text (CONVENTIONS §6).
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
)
