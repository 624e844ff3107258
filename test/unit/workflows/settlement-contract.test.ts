/** How the settlement workflow words the reason of a run that failed (common/settlements/settlement-contract.ts). */
import { ApplicationFailure } from '@temporalio/common'
import { describe, expect, it } from 'vitest'
import { SETTLEMENT_GAVE_UP, settlementFailureReason } from '../../../common/settlements/settlement-contract.ts'

describe('settlementFailureReason', () => {
  it('takes the message of a non-retryable failure thrown directly, and the generic reason for anything else', () => {
    expect(
      settlementFailureReason(
        ApplicationFailure.create({ message: 'Provider prv_x no longer exists', nonRetryable: true })
      )
    ).toBe('Provider prv_x no longer exists')
    expect(settlementFailureReason(ApplicationFailure.create({ message: 'flaky', nonRetryable: false }))).toBe(
      SETTLEMENT_GAVE_UP
    )
    expect(settlementFailureReason(new Error('boom'))).toBe(SETTLEMENT_GAVE_UP)
    expect(settlementFailureReason('not an error')).toBe(SETTLEMENT_GAVE_UP)
  })
})
