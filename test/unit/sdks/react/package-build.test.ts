/**
 * The React package as an integrator's workspace builds it: the SDK built and installed beside React and TanStack
 * Query in node_modules, then `tsc -p sdks/react/tsconfig.build.json` (its `npm run build`) emitting ESM with declarations, which plain Node
 * imports (no TypeScript loader, no bundler).
 */
import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../../../..')
const tsc = path.join(root, 'node_modules/.bin/tsc')
let workspace: string | undefined

afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true })
})

describe('@therapy-care/react build', () => {
  it('compiles against the built SDK to ESM that plain Node imports', { timeout: 120_000 }, async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'react-sdk-build-'))
    const modules = path.join(workspace, 'node_modules')
    const sdk = path.join(modules, '@therapy-care/sdk')
    await run(tsc, ['-p', 'sdks/typescript/tsconfig.json', '--outDir', path.join(sdk, 'dist')], { cwd: root })
    await cp(path.join(root, 'sdks/typescript/package.json'), path.join(sdk, 'package.json'))
    for (const peer of ['react', '@tanstack/react-query', '@tanstack/query-core', '@types/react']) {
      await mkdir(path.dirname(path.join(modules, peer)), { recursive: true })
      await symlink(path.join(root, 'node_modules', peer), path.join(modules, peer), 'dir')
    }
    const pkg = path.join(workspace, 'react')
    for (const part of ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'])
      await cp(path.join(root, 'sdks/react', part), path.join(pkg, part), { recursive: true })

    await run(tsc, ['-p', path.join(pkg, 'tsconfig.build.json')], { cwd: pkg })
    expect(await readFile(path.join(pkg, 'dist/index.d.ts'), 'utf8')).toContain('useBookAppointment')

    const script = path.join(pkg, 'smoke.js')
    await writeFile(
      script,
      `import * as hooks from './dist/index.js'
console.log(JSON.stringify({ version: hooks.REACT_SDK_VERSION, exports: Object.keys(hooks).sort() }))
`
    )
    const { stdout } = await run(process.execPath, [script], { cwd: pkg })
    const { version } = JSON.parse(await readFile(path.join(root, 'sdks/react/package.json'), 'utf8')) as {
      version: string
    }
    expect(JSON.parse(stdout)).toEqual({
      version,
      exports: [
        'REACT_SDK_VERSION',
        'TherapyCareProvider',
        'isRunUnfinished',
        'scopeAllows',
        'therapyCareKeys',
        'useAgentRuns',
        'useAgentWorkflowActions',
        'useAgentWorkflowTemplates',
        'useAgentWorkflows',
        'useApiKeys',
        'useAppointment',
        'useAppointmentPages',
        'useAskKnowledge',
        'useAssistants',
        'useAvailability',
        'useBookAppointment',
        'useCaller',
        'useKnowledgeActions',
        'useKnowledgeDocuments',
        'usePendingBookings',
        'useSsoConnections',
        'useTeamActions',
        'useTeamUsers',
        'useTherapyCare',
        'useUnansweredQuestions',
        'useWebhookDeliveries',
        'useWebhookEndpointActions',
        'useWebhookEndpoints',
      ],
    })
  })
})
