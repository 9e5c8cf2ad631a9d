import { and, eq, type SQL } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
} from "drizzle-orm/pg-core";
import { apiKeys, clientAccounts } from "./accounts-and-keys.js";
import { cad, createdAt, timestamptz } from "./columns.js";

/**
 * State of an erasure request: `pending` until its account is de-identified, then `completed`;
 * `withdrawn` when the client took it back while pending. While one is pending the account is
 * on hold (docs/privacy.md "While a request is pending").
 */
export const ERASURE_STATUSES = ["pending", "completed", "withdrawn"] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];

/**
 * Erasure (de-identification) requests of client accounts (docs/privacy.md). The personal fields
 * are de-identified by the privacy-retention job once `due_at` is past (the end of the legal
 * retention of the account's accounting records), or earlier by the operator with a reason.
 */
export const erasureRequests = pgTable(
  "erasure_requests",
  {
    /** `era_<id>`. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => clientAccounts.id, { onDelete: "restrict" }),
    status: text("status").$type<ErasureStatus>().notNull().default("pending"),
    requestedAt: timestamptz("requested_at").notNull().defaultNow(),
    /** Earliest moment the job may de-identify: the newest accounting record + retention. */
    dueAt: timestamptz("due_at").notNull(),
    processedAt: timestamptz("processed_at"),
    /** `job` (the retention job) or the admin key id of an early processing. */
    processedBy: text("processed_by"),
    /** Why the operator processed it before `due_at` (required then). */
    earlyReason: text("early_reason"),
    /**
     * The account's prepaid balance when the request was made, CAD, when positive: the operator
     * must refund it (never kept silently); null when there was nothing to refund.
     */
    balanceToRefundCad: cad("balance_to_refund_cad"),
    /** When the client withdrew the request (status `withdrawn`). */
    withdrawnAt: timestamptz("withdrawn_at"),
  },
  (t) => [
    index("erasure_requests_status_due_at_idx").on(t.status, t.dueAt),
    index("erasure_requests_account_id_idx").on(t.accountId),
  ],
);

/**
 * The condition "an erasure request of `accountId` is pending" on `erasure_requests`, for an
 * account id or a column holding one (e.g. `api_keys.account_id` in a subquery): the one test
 * of an account's erasure hold (docs/privacy.md "While a request is pending").
 */
export function pendingErasureOf(accountId: string | AnyPgColumn): SQL {
  return and(eq(erasureRequests.accountId, accountId), eq(erasureRequests.status, "pending")) as SQL;
}

/**
 * Audit trail of privacy operations: exports, erasure requests, de-identifications, retention
 * purges, incidents. Holds ids and counts only (no personal values), no foreign keys.
 */
export const privacyAudit = pgTable(
  "privacy_audit",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: timestamptz("at").notNull().defaultNow(),
    /** e.g. `export`, `erasure_requested`, `deidentified`, `retention_purge`, `incident_recorded`. */
    action: text("action").notNull(),
    /** The account concerned, when one is. */
    accountId: text("account_id"),
    /** `client`, `job`, or `admin:<key id>`. */
    actor: text("actor").notNull(),
    /** Ids and counts (never personal values). */
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [index("privacy_audit_account_id_at_idx").on(t.accountId, t.at)],
);

/**
 * Register of confidentiality incidents (Law 25 asks every enterprise to keep one, and to notify
 * the Commission d'accès à l'information and the persons concerned when there is a risk of
 * serious injury). Operator-only.
 */
export const privacyIncidents = pgTable(
  "privacy_incidents",
  {
    /** `inc_<id>`. */
    id: text("id").primaryKey(),
    occurredAt: timestamptz("occurred_at"),
    discoveredAt: timestamptz("discovered_at").notNull(),
    /** What happened (access, use, communication or loss of personal information). */
    description: text("description").notNull(),
    /** Which personal information was concerned. */
    informationConcerned: text("information_concerned").notNull(),
    /** Number of persons concerned, when known. */
    personsConcerned: integer("persons_concerned"),
    /** Whether the incident presents a risk of serious injury (triggers the notifications). */
    riskOfSeriousInjury: boolean("risk_of_serious_injury").notNull(),
    /** Measures taken to reduce the risk and prevent a recurrence. */
    measures: text("measures"),
    /** When the Commission d'accès à l'information was notified. */
    commissionNotifiedAt: timestamptz("commission_notified_at"),
    /** When the persons concerned were notified. */
    personsNotifiedAt: timestamptz("persons_notified_at"),
    recordedByKeyId: text("recorded_by_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [index("privacy_incidents_discovered_at_idx").on(t.discoveredAt)],
);

export type ErasureRequest = typeof erasureRequests.$inferSelect;
export type PrivacyIncident = typeof privacyIncidents.$inferSelect;
