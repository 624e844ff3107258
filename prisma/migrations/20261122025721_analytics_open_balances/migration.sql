-- CreateIndex
CREATE INDEX "orders_tenant_id_balance_idx" ON "orders"("tenant_id", "balance");
