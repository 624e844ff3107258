-- A row points only at a row of its own tenant, by the database's own constraint (issue 55, item 3; docs/security.md).
-- Every foreign key between two tables that both carry tenant_id was single-column (appointments.provider_id ->
-- providers.id): only the application's lookups kept a row of tenant A from naming a row of tenant B, and a write as
-- the owner, a raw statement or a service that forgot its check could join two tenants' records. Each such key now
-- includes the tenant: FOREIGN KEY (tenant_id, <col>) REFERENCES <table> (tenant_id, id), with the same ON DELETE and
-- ON UPDATE actions as before, named <table>_<col>_tenant_fkey.
--
-- - Each referenced table gets UNIQUE (tenant_id, id) (<table>_tenant_id_id_key) for the keys to reference; none had
--   one. id alone stays the primary key, so this is one more index per referenced table (an insert there maintains it;
--   a referencing row's check reads it as it read the primary key).
-- - ON DELETE SET NULL names its column (PostgreSQL 15: SET NULL (<col>)), so deleting the referenced row clears the
--   reference and leaves the row's tenant_id alone (NOT NULL; a plain SET NULL would null both columns and fail).
-- - Foreign keys to tables without tenant_id (tenants itself) stay as they are.
-- - prisma/schema.prisma keeps its single-column relations, which are what the client needs to join and connect: the
--   database holds the stronger constraint. The schema engine sees these keys as drift: `db:migrate:dev` takes its
--   statements undoing them out of what it writes (scripts/db/tenant-foreign-keys.ts). A new relation between tenant
--   tables still comes out single-column: write it as these are. test/integration/tenant-isolation.int.test.ts fails on
--   any key between two tenant tables that leaves out tenant_id.
-- - Adding each key checks every existing row: a database holding a cross-tenant reference fails here, naming the
--   constraint, rather than keep it.
--
-- Written from the catalogue once (pg_constraint, contype 'f', both tables with tenant_id: 55 keys, 26 referenced
-- tables), as explicit statements so each constraint can be read here. Grouped by the referenced table.

-- agent_runs
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "agent_run_steps"
  DROP CONSTRAINT "agent_run_steps_run_id_fkey",
  ADD CONSTRAINT "agent_run_steps_run_id_tenant_fkey" FOREIGN KEY ("tenant_id", "run_id") REFERENCES "agent_runs" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;

-- agent_workflows
ALTER TABLE "agent_workflows" ADD CONSTRAINT "agent_workflows_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "agent_runs"
  DROP CONSTRAINT "agent_runs_agent_workflow_id_fkey",
  ADD CONSTRAINT "agent_runs_agent_workflow_id_tenant_fkey" FOREIGN KEY ("tenant_id", "agent_workflow_id") REFERENCES "agent_workflows" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- api_clients
ALTER TABLE "api_clients" ADD CONSTRAINT "api_clients_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "refresh_tokens"
  DROP CONSTRAINT "refresh_tokens_client_id_fkey",
  ADD CONSTRAINT "refresh_tokens_client_id_tenant_fkey" FOREIGN KEY ("tenant_id", "client_id") REFERENCES "api_clients" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- appointment_series
ALTER TABLE "appointment_series" ADD CONSTRAINT "appointment_series_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "appointments"
  DROP CONSTRAINT "appointments_series_id_fkey",
  ADD CONSTRAINT "appointments_series_id_tenant_fkey" FOREIGN KEY ("tenant_id", "series_id") REFERENCES "appointment_series" ("tenant_id", "id")
    ON DELETE SET NULL ("series_id") ON UPDATE CASCADE;

-- appointments
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "appointment_reschedules"
  DROP CONSTRAINT "appointment_reschedules_appointment_id_fkey",
  ADD CONSTRAINT "appointment_reschedules_appointment_id_tenant_fkey" FOREIGN KEY ("tenant_id", "appointment_id") REFERENCES "appointments" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "sessions"
  DROP CONSTRAINT "sessions_appointment_id_fkey",
  ADD CONSTRAINT "sessions_appointment_id_tenant_fkey" FOREIGN KEY ("tenant_id", "appointment_id") REFERENCES "appointments" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- assessments
ALTER TABLE "assessments" ADD CONSTRAINT "assessments_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "assessment_notifications"
  DROP CONSTRAINT "assessment_notifications_assessment_id_fkey",
  ADD CONSTRAINT "assessment_notifications_assessment_id_tenant_fkey" FOREIGN KEY ("tenant_id", "assessment_id") REFERENCES "assessments" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "assessments"
  DROP CONSTRAINT "assessments_previous_assessment_id_fkey",
  ADD CONSTRAINT "assessments_previous_assessment_id_tenant_fkey" FOREIGN KEY ("tenant_id", "previous_assessment_id") REFERENCES "assessments" ("tenant_id", "id")
    ON DELETE SET NULL ("previous_assessment_id") ON UPDATE CASCADE;

-- assistants
ALTER TABLE "assistants" ADD CONSTRAINT "assistants_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "knowledge_chunks"
  DROP CONSTRAINT "knowledge_chunks_assistant_id_fkey",
  ADD CONSTRAINT "knowledge_chunks_assistant_id_tenant_fkey" FOREIGN KEY ("tenant_id", "assistant_id") REFERENCES "assistants" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_documents"
  DROP CONSTRAINT "knowledge_documents_assistant_id_fkey",
  ADD CONSTRAINT "knowledge_documents_assistant_id_tenant_fkey" FOREIGN KEY ("tenant_id", "assistant_id") REFERENCES "assistants" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_queries"
  DROP CONSTRAINT "knowledge_queries_assistant_id_fkey",
  ADD CONSTRAINT "knowledge_queries_assistant_id_tenant_fkey" FOREIGN KEY ("tenant_id", "assistant_id") REFERENCES "assistants" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;

-- audit_events
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "audit_chain"
  DROP CONSTRAINT "audit_chain_event_id_fkey",
  ADD CONSTRAINT "audit_chain_event_id_tenant_fkey" FOREIGN KEY ("tenant_id", "event_id") REFERENCES "audit_events" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE RESTRICT;

-- children
ALTER TABLE "children" ADD CONSTRAINT "children_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "appointment_series"
  DROP CONSTRAINT "appointment_series_child_id_fkey",
  ADD CONSTRAINT "appointment_series_child_id_tenant_fkey" FOREIGN KEY ("tenant_id", "child_id") REFERENCES "children" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "appointments"
  DROP CONSTRAINT "appointments_child_id_fkey",
  ADD CONSTRAINT "appointments_child_id_tenant_fkey" FOREIGN KEY ("tenant_id", "child_id") REFERENCES "children" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "assessments"
  DROP CONSTRAINT "assessments_child_id_fkey",
  ADD CONSTRAINT "assessments_child_id_tenant_fkey" FOREIGN KEY ("tenant_id", "child_id") REFERENCES "children" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "care_notifications"
  DROP CONSTRAINT "care_notifications_child_id_fkey",
  ADD CONSTRAINT "care_notifications_child_id_tenant_fkey" FOREIGN KEY ("tenant_id", "child_id") REFERENCES "children" ("tenant_id", "id")
    ON DELETE SET NULL ("child_id") ON UPDATE CASCADE;
ALTER TABLE "child_client_links"
  DROP CONSTRAINT "child_client_links_child_id_fkey",
  ADD CONSTRAINT "child_client_links_child_id_tenant_fkey" FOREIGN KEY ("tenant_id", "child_id") REFERENCES "children" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "child_progress_reports"
  DROP CONSTRAINT "child_progress_reports_child_id_fkey",
  ADD CONSTRAINT "child_progress_reports_child_id_tenant_fkey" FOREIGN KEY ("tenant_id", "child_id") REFERENCES "children" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "early_intervention_plans"
  DROP CONSTRAINT "early_intervention_plans_child_id_fkey",
  ADD CONSTRAINT "early_intervention_plans_child_id_tenant_fkey" FOREIGN KEY ("tenant_id", "child_id") REFERENCES "children" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- clients
ALTER TABLE "clients" ADD CONSTRAINT "clients_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "child_client_links"
  DROP CONSTRAINT "child_client_links_client_id_fkey",
  ADD CONSTRAINT "child_client_links_client_id_tenant_fkey" FOREIGN KEY ("tenant_id", "client_id") REFERENCES "clients" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "pets"
  DROP CONSTRAINT "pets_owner_client_id_fkey",
  ADD CONSTRAINT "pets_owner_client_id_tenant_fkey" FOREIGN KEY ("tenant_id", "owner_client_id") REFERENCES "clients" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- events
ALTER TABLE "events" ADD CONSTRAINT "events_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "webhook_deliveries"
  DROP CONSTRAINT "webhook_deliveries_event_id_fkey",
  ADD CONSTRAINT "webhook_deliveries_event_id_tenant_fkey" FOREIGN KEY ("tenant_id", "event_id") REFERENCES "events" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;

-- knowledge_documents
ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "knowledge_chunks"
  DROP CONSTRAINT "knowledge_chunks_document_id_fkey",
  ADD CONSTRAINT "knowledge_chunks_document_id_tenant_fkey" FOREIGN KEY ("tenant_id", "document_id") REFERENCES "knowledge_documents" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;

-- ledger_entries
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "ledger_lines"
  DROP CONSTRAINT "ledger_lines_entry_id_fkey",
  ADD CONSTRAINT "ledger_lines_entry_id_tenant_fkey" FOREIGN KEY ("tenant_id", "entry_id") REFERENCES "ledger_entries" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- locations
ALTER TABLE "locations" ADD CONSTRAINT "locations_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "appointment_series"
  DROP CONSTRAINT "appointment_series_location_id_fkey",
  ADD CONSTRAINT "appointment_series_location_id_tenant_fkey" FOREIGN KEY ("tenant_id", "location_id") REFERENCES "locations" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "appointments"
  DROP CONSTRAINT "appointments_location_id_fkey",
  ADD CONSTRAINT "appointments_location_id_tenant_fkey" FOREIGN KEY ("tenant_id", "location_id") REFERENCES "locations" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "children"
  DROP CONSTRAINT "children_location_id_fkey",
  ADD CONSTRAINT "children_location_id_tenant_fkey" FOREIGN KEY ("tenant_id", "location_id") REFERENCES "locations" ("tenant_id", "id")
    ON DELETE SET NULL ("location_id") ON UPDATE CASCADE;
ALTER TABLE "clients"
  DROP CONSTRAINT "clients_location_id_fkey",
  ADD CONSTRAINT "clients_location_id_tenant_fkey" FOREIGN KEY ("tenant_id", "location_id") REFERENCES "locations" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "custom_field_definitions"
  DROP CONSTRAINT "custom_field_definitions_location_id_fkey",
  ADD CONSTRAINT "custom_field_definitions_location_id_tenant_fkey" FOREIGN KEY ("tenant_id", "location_id") REFERENCES "locations" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "provider_locations"
  DROP CONSTRAINT "provider_locations_location_id_fkey",
  ADD CONSTRAINT "provider_locations_location_id_tenant_fkey" FOREIGN KEY ("tenant_id", "location_id") REFERENCES "locations" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "providers"
  DROP CONSTRAINT "providers_location_id_fkey",
  ADD CONSTRAINT "providers_location_id_tenant_fkey" FOREIGN KEY ("tenant_id", "location_id") REFERENCES "locations" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- order_lines
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "refund_lines"
  DROP CONSTRAINT "refund_lines_order_line_id_fkey",
  ADD CONSTRAINT "refund_lines_order_line_id_tenant_fkey" FOREIGN KEY ("tenant_id", "order_line_id") REFERENCES "order_lines" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- orders
ALTER TABLE "orders" ADD CONSTRAINT "orders_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "order_lines"
  DROP CONSTRAINT "order_lines_order_id_fkey",
  ADD CONSTRAINT "order_lines_order_id_tenant_fkey" FOREIGN KEY ("tenant_id", "order_id") REFERENCES "orders" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "payments"
  DROP CONSTRAINT "payments_order_id_fkey",
  ADD CONSTRAINT "payments_order_id_tenant_fkey" FOREIGN KEY ("tenant_id", "order_id") REFERENCES "orders" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "refunds"
  DROP CONSTRAINT "refunds_order_id_fkey",
  ADD CONSTRAINT "refunds_order_id_tenant_fkey" FOREIGN KEY ("tenant_id", "order_id") REFERENCES "orders" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- payments
ALTER TABLE "payments" ADD CONSTRAINT "payments_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "refunds"
  DROP CONSTRAINT "refunds_payment_id_fkey",
  ADD CONSTRAINT "refunds_payment_id_tenant_fkey" FOREIGN KEY ("tenant_id", "payment_id") REFERENCES "payments" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- prices
ALTER TABLE "prices" ADD CONSTRAINT "prices_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "order_lines"
  DROP CONSTRAINT "order_lines_price_id_fkey",
  ADD CONSTRAINT "order_lines_price_id_tenant_fkey" FOREIGN KEY ("tenant_id", "price_id") REFERENCES "prices" ("tenant_id", "id")
    ON DELETE SET NULL ("price_id") ON UPDATE CASCADE;

-- provider_settlements
ALTER TABLE "provider_settlements" ADD CONSTRAINT "provider_settlements_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "ledger_entries"
  DROP CONSTRAINT "ledger_entries_provider_settlement_id_fkey",
  ADD CONSTRAINT "ledger_entries_provider_settlement_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_settlement_id") REFERENCES "provider_settlements" ("tenant_id", "id")
    ON DELETE SET NULL ("provider_settlement_id") ON UPDATE CASCADE;
ALTER TABLE "settlement_items"
  DROP CONSTRAINT "settlement_items_provider_settlement_id_fkey",
  ADD CONSTRAINT "settlement_items_provider_settlement_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_settlement_id") REFERENCES "provider_settlements" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "settlement_providers"
  DROP CONSTRAINT "settlement_providers_provider_settlement_id_fkey",
  ADD CONSTRAINT "settlement_providers_provider_settlement_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_settlement_id") REFERENCES "provider_settlements" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- providers
ALTER TABLE "providers" ADD CONSTRAINT "providers_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "api_keys"
  DROP CONSTRAINT "api_keys_provider_id_fkey",
  ADD CONSTRAINT "api_keys_provider_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_id") REFERENCES "providers" ("tenant_id", "id")
    ON DELETE SET NULL ("provider_id") ON UPDATE CASCADE;
ALTER TABLE "appointment_series"
  DROP CONSTRAINT "appointment_series_provider_id_fkey",
  ADD CONSTRAINT "appointment_series_provider_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_id") REFERENCES "providers" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "appointments"
  DROP CONSTRAINT "appointments_provider_id_fkey",
  ADD CONSTRAINT "appointments_provider_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_id") REFERENCES "providers" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "assessments"
  DROP CONSTRAINT "assessments_provider_id_fkey",
  ADD CONSTRAINT "assessments_provider_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_id") REFERENCES "providers" ("tenant_id", "id")
    ON DELETE SET NULL ("provider_id") ON UPDATE CASCADE;
ALTER TABLE "care_notifications"
  DROP CONSTRAINT "care_notifications_provider_id_fkey",
  ADD CONSTRAINT "care_notifications_provider_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_id") REFERENCES "providers" ("tenant_id", "id")
    ON DELETE SET NULL ("provider_id") ON UPDATE CASCADE;
ALTER TABLE "platform_users"
  DROP CONSTRAINT "platform_users_provider_id_fkey",
  ADD CONSTRAINT "platform_users_provider_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_id") REFERENCES "providers" ("tenant_id", "id")
    ON DELETE SET NULL ("provider_id") ON UPDATE CASCADE;
ALTER TABLE "provider_locations"
  DROP CONSTRAINT "provider_locations_provider_id_fkey",
  ADD CONSTRAINT "provider_locations_provider_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_id") REFERENCES "providers" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "provider_onboardings"
  DROP CONSTRAINT "provider_onboardings_provider_id_fkey",
  ADD CONSTRAINT "provider_onboardings_provider_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_id") REFERENCES "providers" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "provider_time_off"
  DROP CONSTRAINT "provider_time_off_provider_id_fkey",
  ADD CONSTRAINT "provider_time_off_provider_id_tenant_fkey" FOREIGN KEY ("tenant_id", "provider_id") REFERENCES "providers" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- refunds
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "refund_lines"
  DROP CONSTRAINT "refund_lines_refund_id_fkey",
  ADD CONSTRAINT "refund_lines_refund_id_tenant_fkey" FOREIGN KEY ("tenant_id", "refund_id") REFERENCES "refunds" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- session_notes
ALTER TABLE "session_notes" ADD CONSTRAINT "session_notes_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "note_addenda"
  DROP CONSTRAINT "note_addenda_note_id_fkey",
  ADD CONSTRAINT "note_addenda_note_id_tenant_fkey" FOREIGN KEY ("tenant_id", "note_id") REFERENCES "session_notes" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- sessions
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "session_notes"
  DROP CONSTRAINT "session_notes_session_id_fkey",
  ADD CONSTRAINT "session_notes_session_id_tenant_fkey" FOREIGN KEY ("tenant_id", "session_id") REFERENCES "sessions" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- settlements
ALTER TABLE "settlements" ADD CONSTRAINT "settlements_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "settlement_providers"
  DROP CONSTRAINT "settlement_providers_settlement_id_fkey",
  ADD CONSTRAINT "settlement_providers_settlement_id_tenant_fkey" FOREIGN KEY ("tenant_id", "settlement_id") REFERENCES "settlements" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- webhook_deliveries
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "webhook_delivery_attempts"
  DROP CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey",
  ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_tenant_fkey" FOREIGN KEY ("tenant_id", "delivery_id") REFERENCES "webhook_deliveries" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;

-- webhook_endpoints
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "webhook_deliveries"
  DROP CONSTRAINT "webhook_deliveries_endpoint_id_fkey",
  ADD CONSTRAINT "webhook_deliveries_endpoint_id_tenant_fkey" FOREIGN KEY ("tenant_id", "endpoint_id") REFERENCES "webhook_endpoints" ("tenant_id", "id")
    ON DELETE CASCADE ON UPDATE CASCADE;
