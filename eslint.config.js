// ESLint flat config: the static checks CI runs (`npm run lint`).
//
// TypeScript files are linted with type information (typescript-eslint's project service: each file is checked
// against the tsconfig.json nearest to it, so sdks/typescript/src uses the SDK's own web-only config). Formatting is Prettier's
// job, so eslint-config-prettier comes last and turns every stylistic rule off.
import { readdirSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import { defineConfig, globalIgnores } from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import { functionLimits } from './scripts/lint/function-limits.mjs'

/**
 * The top-level folders of the repository, read from disk so a new one is covered at once.
 */
const root = dirname(fileURLToPath(import.meta.url))

/** Production code: what the size limits hold (tests, benches and evaluations are not held to them). */
const PRODUCTION_FILES = [
  'adapters/**/*.ts',
  'api/**/*.ts',
  'activities/**/*.ts',
  'common/**/*.ts',
  'domain/**/*.ts',
  'infra/**/*.ts',
  'worker/**/*.ts',
  'workflows/**/*.ts',
  'scripts/**/*.ts',
  'console/**/*.{ts,tsx}',
]
const TOP_LEVEL_FOLDERS = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
  .map((entry) => entry.name)
const otherTopLevelFolders = (folder) => TOP_LEVEL_FOLDERS.filter((name) => name !== folder).join('|')

/**
 * The packages the ground floor (common/) may import: Temporal's message definitions and failure types, which hold no
 * I/O and are what both the workflows and the code that starts them need (samples-typescript's `shared.ts` imports the
 * same). Anything else, types included, is refused: the floor is bundled into the workflow sandbox.
 */
const PURE_PACKAGES = ['@temporalio/workflow', '@temporalio/common']

/**
 * What workflow code must not import (Temporal's samples-typescript `hello-world/.eslintrc.js`): workflows
 * run in a deterministic sandbox and are replayed, so every Node built-in and anything doing I/O or holding a client
 * belongs in an activity. `import type` of packages stays allowed (`allowTypeImports`), erased at build; the repository's
 * other folders are refused outright by `onlyTheGroundFloor` below.
 */
const workflowRestrictedImports = {
  paths: [
    ...builtinModules.flatMap((name) => (name.startsWith('node:') ? [name] : [name, `node:${name}`])),
    ...['@temporalio/activity', '@temporalio/client', '@temporalio/worker', '@temporalio/testing'].map((name) => ({
      name,
      message:
        'Workflow code runs in the Temporal sandbox: only @temporalio/workflow and @temporalio/common belong here.',
      allowTypeImports: true,
    })),
    ...['pg', 'prisma', 'hono', 'jose', 'pino'].map((name) => ({
      name,
      message: 'I/O, clients and loggers belong in activities (workflows log with `log` from @temporalio/workflow).',
      allowTypeImports: true,
    })),
  ].map((entry) =>
    typeof entry === 'string'
      ? {
          name: entry,
          message: 'Node built-ins are not deterministic (and not available in the Temporal sandbox): use an activity.',
          allowTypeImports: true,
        }
      : entry
  ),
  patterns: [
    {
      group: ['@prisma/*', '@langchain/*', '@hono/*', '@electric-sql/*', 'pdf-parse', 'rate-limiter-flexible'],
      message: 'I/O and SDK clients belong in activities, not in a workflow.',
      allowTypeImports: true,
    },
  ],
}

/**
 * The layering rule (docs/architecture.md, "Layers"): workflows/ is orchestration only and stands on the ground floor,
 * common/ (the workflows' contracts, the deterministic rules they run, calendar arithmetic), which domain/ and
 * activities/ stand on too. So a workflow imports from the repository only common/, not even a type from elsewhere:
 * it proxies its activities through the interface its contract declares (`common/<concept>/<name>-contract.ts`, e.g.
 * `BookingActivities`), which the activity factory declares it returns, so the compiler checks the two agree.
 * Regular expressions over the specifier: workflows/ is flat, so `../` leaves it.
 */
const onlyTheGroundFloor = {
  regex: `^(\\./)?(\\.\\./)+(?!common/)`,
  message:
    'A workflow imports from this repository only the ground floor (common/), not even types: proxy activities through the interface its contract declares.',
}

/**
 * The ground floor imports only itself and pure packages (PURE_PACKAGES), types included: it runs in the workflow
 * sandbox, and what it imported would stand under every floor above it.
 */
const onlyItselfAndPurePackages = [
  {
    regex: `^(\\./)?(\\.\\./)+(${otherTopLevelFolders('common')})/`,
    message: 'The ground floor (common/) imports only itself: the folders above stand on it, not it on them.',
  },
  {
    regex: `^(?!\\.{1,2}/|(${PURE_PACKAGES.map((name) => name.replace('/', '\\/')).join('|')})$)`,
    message: `The ground floor (common/) imports only pure packages (${PURE_PACKAGES.join(', ')}): it runs in the workflow sandbox.`,
  },
]

/** Workflow code is Temporal's to load: outside workflows/, production code imports nothing from it. */
const noWorkflowImports = {
  regex: '^(\\.\\./)+workflows/',
  message:
    'Import what a workflow shares (its kind, input, signals, queries, activity interface) from its contract in common/, not from workflows/.',
}
/** The domain speaks to the outside through the interfaces it declares, which adapters/ fill. */
const noAdapterImports = {
  regex: '^(\\.\\./)+adapters/',
  message:
    'The domain declares the interface (a poster, a chat model, embeddings) and is handed the adapter that fills it: it imports nothing from adapters/.',
}
const withPatterns = (options, ...patterns) => ({ ...options, patterns: [...options.patterns, ...patterns] })
/** Vendors stay at the edge (issue 79, item 3): the domain names what it needs; adapters/ and infra/ bring these. */
const noVendorImports = {
  group: ['pg', 'onnxruntime-node', '@grpc/*', '@langchain/community', '@langchain/community/*'],
  message:
    'A database driver, a model runtime, gRPC or a LangChain integration belongs in adapters/ or infra/ (infra/sql-literal.ts, infra/temporal-errors.ts): the domain declares the interface and is handed what fills it.',
}

export default defineConfig([
  globalIgnores([
    'node_modules/',
    'generated/',
    '**/dist/',
    'coverage/',
    '.data/',
    'schemathesis-report/',
    '.schemathesis/',
    // Generated by `npm run sdk:generate` (openapi-typescript): fixed by regenerating, not by hand.
    'sdks/typescript/src/openapi.generated.ts',
  ]),

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unnecessary-condition': 'error',
      // Team rule: no `any` without a reason, given as `// eslint-disable-next-line ... -- <why>`.
      '@typescript-eslint/no-explicit-any': 'error',
      // A leading underscore marks a value kept on purpose (a rest-sibling omit, a positional parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Off: `async` on a function with no `await` is how this code base implements Promise-returning interfaces
      // (payload codecs, embeddings, payment processors, fakes) so that a synchronous throw becomes a rejection;
      // dropping `async` would change that behaviour.
      '@typescript-eslint/require-await': 'off',
      // A caught value passed on as a rejection (`Promise.reject(error)` in a catch, a queued caller's `reject(error)`)
      // is what `throw error` is to only-throw-error, which allows it: the value is whatever was thrown. Values
      // created here must still be Errors.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // The rule's default allow list (Error, URL, URLSearchParams from the TypeScript lib), plus the same classes as
      // @types/node declares them: with Node's types loaded, the global `URLSearchParams` is Node's, which the
      // default list does not recognise, and `?${params}` is how this code base builds query strings.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allow: [
            { from: 'lib', name: ['Error', 'URL', 'URLSearchParams'] },
            { from: 'package', package: 'url', name: ['URL', 'URLSearchParams'] },
          ],
        },
      ],
    },
  },

  {
    files: ['test/**/*.ts'],
    rules: {
      // Off in tests: response bodies are read as `any` (`await res.json()`) and checked field by field with
      // `expect`, which is the check; typing every body would add casts without adding safety.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Off in tests: activities are object-literal methods that use no `this`, and tests take them out of their
      // factory's object (`const { settle } = createSettlementActivities(deps)`) the way the worker registers them.
      '@typescript-eslint/unbound-method': 'off',
    },
  },

  {
    // Plain JavaScript (this file, two .mjs scripts) is in no tsconfig: lint it without type information.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },

  {
    // The console runs in browsers only (docs/console.md).
    files: ['console/src/**'],
    languageOptions: { globals: { ...globals.browser } },
  },

  {
    // The SDK targets web-standard runtimes (Node 20+, Deno, Bun, workers), not Node alone.
    files: ['sdks/typescript/src/**'],
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
  },

  {
    // A logged error keeps its stack and cause only when the error itself is logged (infra/safe-error.ts).
    files: [
      'adapters/**/*.ts',
      'api/**/*.ts',
      'activities/**/*.ts',
      'domain/**/*.ts',
      'infra/**/*.ts',
      'worker/**/*.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Property[key.name='err'] > CallExpression[callee.name='String']",
          message: 'Log the error itself (`{ err: error }`): `String(error)` drops its stack and its cause.',
        },
      ],
    },
  },

  {
    files: ['adapters/**/*.ts', 'api/**/*.ts', 'activities/**/*.ts', 'infra/**/*.ts', 'worker/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noWorkflowImports] }] },
  },

  {
    // The domain declares the interfaces the adapters fill; the process's composition (api/, worker/, activities/)
    // builds the adapters and hands them in. An import of adapters/ from the domain would make the two folders
    // import each other.
    files: ['domain/**/*.ts', 'domain/**/*.mjs'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noWorkflowImports, noAdapterImports, noVendorImports] }] },
  },

  {
    files: ['common/**/*.ts'],
    rules: {
      // The base rule cannot tell `import type` from a value import; the typescript-eslint one can.
      'no-restricted-imports': 'off',
      // Not the workflows' list of refused packages: an allow-list, which refuses Node built-ins too. (Merged with
      // that list, its entries that allow `import type` would let a type import of a package through.)
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: onlyItselfAndPurePackages }],
      // No clock and no chance of its own: the caller passes the time (workflow time in a workflow, the clock in the
      // domain), so the same rule answers the same in a replay.
      'no-restricted-syntax': [
        'error',
        ...[
          "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          "NewExpression[callee.name='Date'][arguments.length=0]",
          "CallExpression[callee.object.name='Math'][callee.property.name='random']",
        ].map((selector) => ({
          selector,
          message:
            'The ground floor has no clock nor randomness of its own: take the time (or the value) as an argument.',
        })),
      ],
    },
  },

  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        withPatterns(workflowRestrictedImports, onlyTheGroundFloor),
      ],
    },
  },

  // Functions: 80 lines of code and a cyclomatic complexity of 20 each in production code (issue 79, item 1); the
  // functions written before these limits are named below with their caps, so each can shrink but none can grow.
  ...functionLimits(PRODUCTION_FILES),

  {
    // A room's size fails the build, not a review a week later (issue 79): 350 lines of code per production file,
    // blank lines and comments not counted (they explain why; they are not what a reader has to hold in mind).
    files: PRODUCTION_FILES,
    rules: { 'max-lines': ['error', { max: 350, skipBlankLines: true, skipComments: true }] },
  },

  prettier,
])
