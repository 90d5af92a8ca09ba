import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Plain JavaScript: configuration, and the small Node scripts of setup and build (scripts/).
    ignores: [
      'node_modules',
      'dist',
      'var',
      'coverage',
      'src/generated',
      // Written by openapi-typescript (npm run client:generate), checked against the document.
      'clients/typescript/herald-api.d.ts',
      '*.js',
      '*.mjs',
      'scripts/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An un-awaited promise in a worker is a lost email.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  // One writer per table: a module reaches another module's tables through that module's
  // services, never its repositories or its SQL. An import that climbs out of the importing
  // file's domain folder (src/<domain>/…) and names a *.repository or *.sql file is refused;
  // imports inside a domain are free. Tests are exempt: the medium tier tests repositories.
  ...[0, 1, 2, 3].map((depth) => ({
    files: [`src/${'*/'.repeat(depth)}*.ts`],
    ignores: ['src/generated/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // depth 0 (src/*.ts, the entry points): any domain's; deeper: leaving the domain.
              regex:
                depth === 0
                  ? '^\\./[^/]+/.*\\.(repository|sql)$'
                  : `^${'\\.\\./'.repeat(depth)}.*\\.(repository|sql)$`,
              message:
                "Another module's repository or SQL: call that module's service instead (one writer per table).",
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['test/**/*.ts', '**/*.spec.ts', '**/*.e2e-spec.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // The dashboard's React app (web/): the rules of hooks and of the React Compiler.
    files: ['web/**/*.{ts,tsx,mts}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
);
