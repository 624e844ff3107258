-- AlterTable
ALTER TABLE "note_addenda" ADD COLUMN     "reason" TEXT NOT NULL DEFAULT 'OTHER';

ALTER TABLE "note_addenda" ADD CONSTRAINT "note_addenda_reason_check"
  CHECK (reason IN ('LATE_ENTRY', 'CORRECTION', 'CLARIFICATION', 'OTHER'));
