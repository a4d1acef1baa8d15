// ESLint flat config for the whole repository (`npm run lint`, and `nx run <project>:lint`).
//
// Two things are checked:
//  1. Module boundaries, with @nx/enforce-module-boundaries over the Nx project graph. Every project carries a layer
//     tag in its project.json, and a project may depend only on its own layer or the layers below it:
//        layer:pure    computation without servers (color, envelope, fingerprint, imaging, ocr)
//        layer:infra   adapters to the servers: Postgres/PGlite, S3/folder (storage), Redis/BullMQ (queue)
//        layer:domain  the application's services (jobs; auth: accounts, keys, signatures, throttles)
//        layer:wiring  the composition of infra and domain from the configuration (runtime)
//        layer:app     the processes (gateway, worker, cli); no app depends on another app
//     The rule also refuses relative imports that reach into another project, and imports of a lib the importing
//     project's package graph would make circular.
//  2. Correctness: ESLint's and typescript-eslint's recommended sets, minus the purely stylistic rules this code base
//     has not followed (listed below with the reason). Unused variables are warnings (names starting with `_` are
//     deliberate), not errors.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const layer = (name, ...may) => ({ sourceTag: `layer:${name}`, onlyDependOnLibsWithTags: [name, ...may].map((l) => `layer:${l}`) });

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/.nx/**', '**/coverage/**', 'tools/bench/**/.cache/**', 'data/**', 'tmp/**'],
  },
  ...nx.configs['flat/base'],
  {
    files: ['**/*.ts', '**/*.mts', '**/*.cts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          depConstraints: [
            layer('pure'),
            layer('infra', 'pure'),
            layer('domain', 'infra', 'pure'),
            layer('wiring', 'domain', 'infra', 'pure'),
            layer('app', 'wiring', 'domain', 'infra', 'pure'),
          ],
        },
      ],
      // `import x = require('x')` is how TypeScript imports a CommonJS `export =` module; plain require() stays refused.
      '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
      '@typescript-eslint/no-unused-vars': [
        'warn',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // A warning in production code (the code base marks its deliberate `any`s with a disable comment); tests may use it.
      '@typescript-eslint/no-explicit-any': 'warn',
      // Style, not correctness: escapes that are redundant but harmless.
      'no-useless-escape': 'off',
    },
  },
  {
    // This test compiles the kernels' .wat with the generator (tools/wasm, not an Nx project) and compares the bytes
    // with the committed .wasm.ts: the one import of a tool by a project, and a deliberate one.
    files: ['libs/fingerprint/src/wasm/built-from-source.test.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts', '**/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
