/**
 * The onboarding workflow's reads of the database around the API's own write, on Temporal's time-skipping test server
 * with the real workflow code and activities that report a chosen database state. The API asks the workflow for a
 * step first (an update), then records it in its own transaction; a reminder the workflow is recording meanwhile reads
 * the row before that commit and reports the step before. Through the API this is a race of milliseconds (seen once in
 * a full run under load: the documents answered BACKGROUND_CHECK, and the background check sent right after was
 * refused "at step DOCUMENTS"); here the read is made stale on purpose, every run.
 */
import { randomUUID } from 'node:crypto'
import type { TestWorkflowEnvironment } from '@temporalio/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OnboardingOperation } from '../../common/provider-onboarding/onboarding-rules.ts'
import {
  confirmProfileUpdate,
  onboardingStateQuery,
  providerChangedSignal,
  recordBackgroundCheckUpdate,
  submitDocumentsUpdate,
  type OnboardingState,
} from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { providerOnboardingWorkflow } from '../../workflows/provider-onboarding.ts'
import { eventually } from '../support/platform.ts'
import { startStubbedWorker, type StubbedWorker } from '../support/test-server.ts'
import { untilNoActivityRuns } from '../support/time-skipping.ts'

let env: TestWorkflowEnvironment
let stubbed: StubbedWorker
const taskQueue = `onboarding-settle-${randomUUID()}`

/** A promise the test resolves: an activity waits on it, as a slow database call would. */
function gate<T>() {
  let open!: (value: T) => void
  const opened = new Promise<T>((resolve) => (open = resolve))
  return { opened, open }
}

/** Per provider: what its reminder read reports once let go, and whether the recording of accepted steps may go on. */
const reminders = new Map<string, ReturnType<typeof gate<OnboardingState>>>()
/** Per provider: what its reload (after a provider-changed signal) reports once let go. */
const reloads = new Map<string, ReturnType<typeof gate<OnboardingState>>>()
const recordings = new Map<string, ReturnType<typeof gate<void>>>()
/** Per provider: the activities called, in order (`reminder`, or the recorded step's action). */
const calls = new Map<string, string[]>()

const called = (providerId: string, what: string) => calls.set(providerId, [...(calls.get(providerId) ?? []), what])
const hasCalled = (providerId: string, what: string) => (calls.get(providerId) ?? []).includes(what) || undefined

const DOCUMENTS = [{ type: 'LICENSE' as const, reference: 'docstore://lic.pdf' }]

beforeAll(async () => {
  type Ref = { providerId: string }
  stubbed = await startStubbedWorker(taskQueue, {
    applyOnboardingStep: async ({ providerId, op }: Ref & { op: OnboardingOperation }) => {
      called(providerId, op.action)
      // Steps after the profile wait for the test: the window in which a stale read would have moved the workflow
      // back stays open while the test looks.
      if (op.action !== 'confirmProfile') await recordings.get(providerId)?.opened
      const steps: Record<string, OnboardingState> = {
        confirmProfile: { status: 'IN_PROGRESS', step: 'DOCUMENTS' },
        submitDocuments: { status: 'IN_PROGRESS', step: 'LICENCE_VERIFICATION' },
        verifyLicence: { status: 'IN_PROGRESS', step: 'BACKGROUND_CHECK' },
        recordBackgroundCheck: { status: 'IN_PROGRESS', step: 'ADMIN_APPROVAL' },
      }
      return steps[op.action] ?? { status: 'IN_PROGRESS', step: 'ADMIN_APPROVAL' }
    },
    notifyReadyForApproval: () => undefined,
    reloadOnboarding: ({ providerId }: Ref) => {
      called(providerId, 'reload')
      return reloads.get(providerId)!.opened
    },
    closeOnboarding: ({ status }: { status: 'TIMED_OUT' | 'CANCELLED' }) => ({ status, step: 'DOCUMENTS' }),
    recordOnboardingReminder: ({ providerId }: Ref) => {
      called(providerId, 'reminder')
      return reminders.get(providerId)!.opened
    },
  })
  env = stubbed.env
}, 120_000)

afterAll(() => stubbed.stop())

/** An onboarding at its documents step, the profile's recording done; later recordings wait for the test. */
async function atDocuments() {
  const providerId = `prv_${randomUUID().replaceAll('-', '')}`
  recordings.set(providerId, gate<void>())
  const handle = await env.client.workflow.start(providerOnboardingWorkflow, {
    taskQueue,
    workflowId: `onboarding-settle-test-${providerId}`,
    args: [{ tenantId: 'ten_settle', providerId, attempt: 1 }],
  })
  expect(await handle.executeUpdate(confirmProfileUpdate)).toMatchObject({ step: 'DOCUMENTS' })
  await untilNoActivityRuns(handle)
  return { providerId, handle }
}

/**
 * An onboarding at its documents step whose first reminder is being recorded (held open by the test), and a documents
 * submission the workflow accepted meanwhile: the API's commit of it has not happened as far as that read knows.
 */
async function documentsAcceptedDuringReminder() {
  const { providerId, handle } = await atDocuments()
  reminders.set(providerId, gate<OnboardingState>())
  // Three days on, the documents step's first reminder falls due; its read is held open. (The profile's recording
  // has ended: a skip begun while an activity runs waits on the wall clock, the server's time standing still then.)
  await env.sleep('3 days')
  await eventually(async () => hasCalled(providerId, 'reminder'), 20_000)
  const documents = await handle.executeUpdate(submitDocumentsUpdate, { args: [DOCUMENTS, true] })
  expect(documents).toMatchObject({ status: 'IN_PROGRESS', step: 'BACKGROUND_CHECK' })
  return { providerId, handle }
}

describe('the onboarding workflow reading the database while the API records an accepted step', () => {
  it('keeps an accepted step through a reminder read made before the API committed it: the next step is accepted', async () => {
    const { providerId, handle } = await documentsAcceptedDuringReminder()

    // The reminder's read was made before the API's commit: it still says DOCUMENTS.
    reminders.get(providerId)!.open({ status: 'IN_PROGRESS', step: 'DOCUMENTS' })
    await eventually(async () => hasCalled(providerId, 'submitDocuments'), 20_000)
    expect(await handle.query(onboardingStateQuery)).toMatchObject({ status: 'IN_PROGRESS', step: 'BACKGROUND_CHECK' })

    // The API committed and answered; its caller sends the background check at once.
    const checked = await handle.executeUpdate(recordBackgroundCheckUpdate, {
      args: [{ outcome: 'CLEAR', reference: 'chk_1' }],
    })
    expect(checked).toMatchObject({ status: 'IN_PROGRESS', step: 'ADMIN_APPROVAL' })
    recordings.get(providerId)!.open()
    // The test server's clock stands still while any activity runs, and a run ended with one in flight never lets it
    // go (untilNoActivityRuns): the next test skips days.
    await untilNoActivityRuns(handle)
    await handle.terminate('test over')
  })

  it('still takes a read that closes the onboarding (approved outside the workflow meanwhile)', async () => {
    // The other read the workflow follows: the reload after a provider-changed signal, here made while the documents
    // are accepted, and answering that the provider was approved outside the onboarding. No time is skipped.
    const { providerId, handle } = await atDocuments()
    reloads.set(providerId, gate<OnboardingState>())
    await handle.signal(providerChangedSignal)
    await eventually(async () => hasCalled(providerId, 'reload'), 20_000)
    expect(await handle.executeUpdate(submitDocumentsUpdate, { args: [DOCUMENTS, true] })).toMatchObject({
      step: 'BACKGROUND_CHECK',
    })

    reloads.get(providerId)!.open({ status: 'APPROVED', step: 'DOCUMENTS' })
    await eventually(async () => hasCalled(providerId, 'submitDocuments'), 20_000)
    expect(await handle.query(onboardingStateQuery)).toMatchObject({ status: 'APPROVED' })
    recordings.get(providerId)!.open()
    expect(await handle.result()).toMatchObject({ status: 'APPROVED' })
  })
})
