-- A configured chat model's cost, per query and so per tenant (issue 77): the call's latency and the tokens the
-- provider reported (null when it reported none), and why its answer was replaced by the offline answerer's (its
-- deadline, or a failure). Null on queries the offline answerer answered alone. Counts only: never the text.
ALTER TABLE "knowledge_queries"
  ADD COLUMN "chat_latency_ms" INTEGER,
  ADD COLUMN "chat_input_tokens" INTEGER,
  ADD COLUMN "chat_output_tokens" INTEGER,
  ADD COLUMN "chat_fallback" TEXT;
