/**
 * Quebec privacy (Law 25: the person in charge, retention periods) and sales taxes (GST/QST
 * registration). One entry a variable, with its default; part of the configuration schema
 * (lib/config/load.ts). docs/privacy.md and docs/taxes.md explain them.
 */
import { z } from "zod";
import { bool, int, optionalString } from "./values.js";

/** Privacy and tax variables of the configuration schema, built on first use (lib/config/load.ts). */
export const privacyTaxSettings = () => ({
  /** Person in charge of the protection of personal information (published in /api/capabilities). */
  PRIVACY_OFFICER_NAME: z.string().trim().min(1).default("Privacy Officer"),
  /** That person's e-mail: access, correction and erasure requests, complaints. */
  PRIVACY_OFFICER_EMAIL: z.email().default("privacy@example.com"),
  /**
   * Retention of accounting records (invoices, ledger), years: an erased account's personal
   * fields are de-identified only once its newest accounting record is this old (Quebec's tax
   * administration act asks six years after the last year they concern).
   */
  ACCOUNTING_RETENTION_YEARS: int(6, 0, 50),
  /** Retention of activity-log rows (API requests: IP, key, agent identity), days; 0 = kept. */
  ACTIVITY_LOG_RETENTION_DAYS: int(365, 0, 36_500),
  /** Retention of proof files (photos, reports) after their upload, days; 0 = kept. */
  PROOF_FILE_RETENTION_DAYS: int(730, 0, 36_500),
  /**
   * Exports past this many rows run as export jobs (docs/privacy.md "Large exports"; docs/decisions.md
   * 48): a Law 25 export whose account has more tasks, ledger entries or activity rows (each counted
   * up to this), a compliance export (`GET /api/analytics?action=export`) with more records.
   * Below it the answer is the file itself, as before.
   */
  EXPORT_JOB_THRESHOLD_ROWS: int(20_000, 1, 10_000_000),
  /** Rows an export job writes per chunk (one part of its file, one transaction). */
  EXPORT_JOB_CHUNK_ROWS: int(5_000, 1, 100_000),
  /** Time budget of one run of the export-jobs cron, seconds (inside the function's 60 s). */
  EXPORT_JOB_BUDGET_SECONDS: int(40, 1, 290),
  /** Attempts of one chunk before the job fails and the requester is told (e-mail). */
  EXPORT_JOB_MAX_ATTEMPTS: int(5, 1, 20),
  /** Delay after a chunk's first failure, seconds; doubled after each further one. */
  EXPORT_JOB_RETRY_SECONDS: int(30, 0, 3600),
  /** Lifetime of an export's download link, hours; the file is deleted after it. */
  EXPORT_LINK_TTL_HOURS: int(72, 1, 720),
  /** Registered for GST/QST: estimates, charges and invoices add the taxes. false = small supplier. */
  TAX_REGISTERED: bool(false),
  /** GST/HST registration number, 9 digits + `RT` + 4 digits (e.g. 123456789RT0001). */
  GST_NUMBER: optionalString().pipe(
    z
      .string()
      .regex(/^\d{9}RT\d{4}$/, "must look like 123456789RT0001")
      .optional(),
  ),
  /** QST registration number, 10 digits + `TQ` + 4 digits (e.g. 1234567890TQ0001). */
  QST_NUMBER: optionalString().pipe(
    z
      .string()
      .regex(/^\d{10}TQ\d{4}$/, "must look like 1234567890TQ0001")
      .optional(),
  ),
  /** Issuer's postal address printed on invoices (one line). */
  OPERATOR_ADDRESS: z.string().trim().default("Terrebonne, QC, Canada"),
});
