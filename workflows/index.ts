/** @module Every workflow the worker runs. The worker bundles this file. */
export { bookingWorkflow } from './booking.ts'
export { webhookDeliveryWorkflow } from './webhook-delivery.ts'
export { assessmentReminderWorkflow } from './assessment-reminder.ts'
export { knowledgeIndexingWorkflow } from './knowledge-indexing.ts'
export { settlementWorkflow } from './settlement.ts'
export { earlyInterventionWorkflow } from './early-intervention.ts'
export { childProgressWorkflow } from './child-progress.ts'
export { providerOnboardingWorkflow } from './provider-onboarding.ts'
