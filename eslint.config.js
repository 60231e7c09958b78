import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist', 'node_modules', '.test-results', '.bench', 'test-results'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
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
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      // Untrusted text is rendered as text (CONVENTIONS §6).
      'no-restricted-syntax': ['error', { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Render untrusted data as text.' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/proxy/**'], message: 'The SPA never imports proxy code.' },
          ],
        },
      ],
    },
  },
  {
    // Features never import each other; shared pieces live in components/ or lib/.
    files: ['src/features/numbers/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/features/history/**'], message: 'Features never import each other.' }] }] },
  },
  {
    files: ['src/features/history/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/features/numbers/**'], message: 'Features never import each other.' }] }] },
  },
  {
    files: ['proxy/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/src/**'], message: 'The proxy never imports SPA code.' }] }] },
  },
)
