/**
 * The whole database schema: every table (one file per table, but client accounts and API
 * keys, which reference each other), the closed value sets
 * stored in text columns, the shared column helpers and the relations. drizzle-kit reads
 * this file (drizzle.config.ts); the client factory passes it to `drizzle()`.
 */

export * from "./accounts-and-keys.js";
export * from "./activity-log.js";
export * from "./activity-rollups.js";
export * from "./alerts.js";
export * from "./audit-log.js";
export * from "./auth-tokens.js";
export * from "./chain-cursors.js";
export * from "./chain-transfers.js";
export * from "./client-sessions.js";
export * from "./columns.js";
export * from "./deliveries.js";
export * from "./disputes.js";
export * from "./emails.js";
export * from "./enums.js";
export * from "./exchange-rates.js";
export * from "./export-jobs.js";
export * from "./idempotency-keys.js";
export * from "./invoices.js";
export * from "./job-runs.js";
export * from "./ledger-entries.js";
export * from "./oauth.js";
export * from "./payment-amounts.js";
export * from "./policy-counters.js";
export * from "./preauthorizations.js";
export * from "./privacy.js";
export * from "./proof-files.js";
export * from "./push.js";
export * from "./relations.js";
export * from "./staff.js";
export * from "./task-events.js";
export * from "./task-refunds.js";
export * from "./task-rollups.js";
export * from "./task-scores.js";
export * from "./tasks.js";
export * from "./webhooks.js";
export * from "./x402-settlements.js";
