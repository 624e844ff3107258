-- Issue 56 (the booking's statement guard, test/integration/booking-statement-plans.int.test.ts): the availability
-- queries read a provider's time off only as far back as one entry can reach, a year (domain/providers/
-- time-off-length.ts), instead of the provider's whole history before the window, for every booking and search. The
-- API has refused longer entries since time off existed; the database now holds the rule too, so a row written
-- around the API cannot hide from those queries.
ALTER TABLE "provider_time_off"
  ADD CONSTRAINT "provider_time_off_longest_check" CHECK ("ends_at" <= "starts_at" + interval '366 days');
