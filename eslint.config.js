// ESLint flat config: the static checks CI runs (`npm run lint`).
//
// TypeScript files are linted with type information (typescript-eslint's project service: each file is checked
// against the tsconfig.json nearest to it, so sdks/typescript/src uses the SDK's own web-only config). Formatting is Prettier's
// job, so eslint-config-prettier comes last and turns every stylistic rule off.
import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import { defineConfig, globalIgnores } from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * What workflow code must not import (Temporal's samples-typescript `hello-world/.eslintrc.js`): workflows
 * run in a deterministic sandbox and are replayed, so every Node built-in and anything doing I/O or holding a client
 * belongs in an activity. `import type` of packages, infra and the API stays allowed (`allowTypeImports`), erased at
 * build; activities are refused outright by `noActivityImports` below.
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
    {
      // Value imports of infrastructure, the API, the worker or the generated Prisma client would pull I/O into the
      // bundle. Types from them are erased. Not activities: `noActivityImports` refuses even their types (a pattern
      // allowing type imports here would let `import type` from activities through whatever other pattern refuses it).
      group: ['**/infra/**', '**/api/**', '**/worker/**', '**/generated/**', '**/scripts/**'],
      message: 'Only `import type` from infra, api, worker or the generated client in workflow code.',
      allowTypeImports: true,
    },
  ],
}

/**
 * Workflow code (and the domain rules bundled with it) imports nothing from activities/, not even `import type`: a
 * workflow proxies its activities through the interface its contract declares (`workflows/<name>-contract.ts`,
 * e.g. `BookingActivities`), which the activity factory declares it returns, so the compiler checks the two agree
 * and the only arrow between the two folders is activities → workflows' contracts (docs/architecture.md, "Layers").
 */
const noActivityImports = {
  group: ['**/activities/**'],
  message:
    "Workflow code imports nothing from activities/, not even types: proxy the activities through the interface the workflow's contract declares (`workflows/<name>-contract.ts`), which the activity factory implements.",
}

/**
 * Modules outside workflows/ that workflows import as values (directly or through one another), and so are bundled
 * into the workflow sandbox with them: the same ban applies. Computed from the imports rather than listed by hand, so a
 * workflow that starts importing another domain module as a value brings it under the rule at once (a hand-kept list
 * had already missed domain/webhooks/retry-schedule.ts). `import type`, and braces of `type` names only, are erased
 * and bundle nothing. Relative imports only: packages are what `workflowRestrictedImports` rules on.
 */
function workflowBundledFiles(root) {
  // `import x`, `import x, { a }`, `import { a }`, `import * as x`, `export { a }`, `export *` ... `from './...'`.
  const valueImport =
    /^(?:import|export)\s+(?!type\s)(\w+(?:\s*,\s*\{[^}]*\})?|\{[^}]*\}|\*(?:\s+as\s+\w+)?)\s*from\s*'(\.[^']+)'/gm
  const typeOnlyBraces = (clause) =>
    /^\{[^}]*\}$/.test(clause) &&
    clause
      .slice(1, -1)
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean)
      .every((name) => name.startsWith('type '))
  const found = new Set()
  const pending = readdirSync(join(root, 'workflows'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(root, 'workflows', name))
  const seen = new Set(pending)
  while (pending.length > 0) {
    const file = pending.pop()
    for (const [, clause, target] of readFileSync(file, 'utf8').matchAll(valueImport)) {
      if (typeOnlyBraces(clause.trim())) continue
      const imported = resolve(dirname(file), target)
      if (seen.has(imported)) continue
      seen.add(imported)
      pending.push(imported)
      const path = relative(root, imported)
      if (!path.startsWith('workflows/')) found.add(path)
    }
  }
  return [...found].sort()
}
const workflowBundledDomainFiles = workflowBundledFiles(dirname(fileURLToPath(import.meta.url)))

/**
 * The layering rule (docs/architecture.md, "Layers"): a workflow and the code around it meet at the workflow's
 * contract. Outside workflows/, production code imports a workflow only through its `workflows/*-contract.ts`; a
 * workflow imports from domain/ only the pure rules listed here, which are bundled into it, and nothing from
 * activities/ (`noActivityImports`). So the one two-way arrow between top-level folders, domain ⇄ workflows, runs
 * through these files and nothing else. A rule added here must be pure: the sandbox ban below applies to it.
 */
const DOMAIN_RULES_BUNDLED_INTO_WORKFLOWS = [
  'domain/appointments/appointment-status.ts',
  'domain/appointments/reminder-schedule.ts',
  'domain/assessments/reminder-plan.ts',
  'domain/child-progress/progress-rules.ts',
  'domain/early-intervention/ei-clock.ts',
  'domain/early-intervention/ei-plan.ts',
  'domain/early-intervention/ei-policy.ts',
  'domain/leads/lead-policy.ts',
  'domain/leads/lead-state.ts',
  'domain/provider-onboarding/onboarding-rules.ts',
  'domain/webhooks/retry-schedule.ts',
]
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
// Regular expressions, not gitignore groups: a group cannot re-include a file once its folder is excluded.
const onlyListedDomainRules = {
  regex: `^(\\.\\./)+domain/(?!(${DOMAIN_RULES_BUNDLED_INTO_WORKFLOWS.map((file) => escapeRegex(file.slice('domain/'.length))).join('|')})$)`,
  message:
    'A workflow imports from domain/ only the pure rules listed in eslint.config.js (DOMAIN_RULES_BUNDLED_INTO_WORKFLOWS).',
}
const onlyWorkflowContracts = {
  regex: '^(\\.\\./)+workflows/(?![\\w-]+-contract\\.ts$)',
  message: 'Outside workflows/, import a workflow only through its contract (`workflows/*-contract.ts`).',
}
const withPatterns = (options, ...patterns) => ({ ...options, patterns: [...options.patterns, ...patterns] })

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
    // The SDK targets web-standard runtimes (Node 20+, Deno, Bun, workers), not Node alone.
    files: ['sdks/typescript/src/**'],
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
  },

  {
    // A logged error keeps its stack and cause only when the error itself is logged (infra/safe-error.ts).
    files: ['api/**/*.ts', 'activities/**/*.ts', 'domain/**/*.ts', 'infra/**/*.ts', 'worker/**/*.ts'],
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
    files: ['api/**/*.ts', 'domain/**/*.ts', 'activities/**/*.ts', 'infra/**/*.ts', 'worker/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [onlyWorkflowContracts] }] },
  },

  {
    files: workflowBundledDomainFiles,
    rules: {
      // The base rule cannot tell `import type` from a value import; the typescript-eslint one can.
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        withPatterns(workflowRestrictedImports, onlyWorkflowContracts, noActivityImports),
      ],
    },
  },

  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        withPatterns(workflowRestrictedImports, onlyListedDomainRules, noActivityImports),
      ],
    },
  },

  prettier,
])
