/**
 * The privacy facts published in GET /api/capabilities `privacy` (Law 25 transparency; the
 * privacy page states the same in French and English): the person in charge of personal
 * information, what is collected and why (from the classification, so it cannot drift from the
 * schema), retention periods, the rights and how to exercise them, and the incident register.
 */
import type { Config } from "../config.js";
import { DATA_CLASSIFICATION } from "./classification.js";

/** The `privacy` block of the manifest for `config`; `base` is the public origin. */
export function privacyNotice(config: Config, base: string): Record<string, unknown> {
  const collected = Object.entries(DATA_CLASSIFICATION)
    .map(([table, c]) => ({
      table,
      purpose: c.purpose,
      personal_fields: Object.entries(c.columns)
        .filter(([, cls]) => cls === "personal")
        .map(([name]) => name),
    }))
    .filter((t) => t.personal_fields.length > 0);
  return {
    law: "Quebec Act respecting the protection of personal information in the private sector (as amended by Law 25)",
    officer: { name: config.PRIVACY_OFFICER_NAME, email: config.PRIVACY_OFFICER_EMAIL },
    policy_page: `${base}/privacy`,
    collected,
    retention: {
      accounting_records_years: config.ACCOUNTING_RETENTION_YEARS,
      activity_log_days: config.ACTIVITY_LOG_RETENTION_DAYS || null,
      proof_files_days: config.PROOF_FILE_RETENTION_DAYS || null,
      dead_letters_hours: config.DEAD_LETTER_RETENTION_HOURS,
      idempotency_records_hours: 24,
      note: "null = kept until erasure; erased accounts are de-identified once the accounting retention has passed",
    },
    rights: {
      access_and_portability: "GET /api/client-account?action=export (client JWT): everything held, as JSON",
      erasure: 'POST /api/privacy {"action":"request_erasure"} (client JWT); processed by a daily job',
      correction_and_complaints: `write to ${config.PRIVACY_OFFICER_EMAIL}`,
      commission: "Commission d'accès à l'information du Québec (https://www.cai.gouv.qc.ca)",
    },
    incidents: "confidentiality incidents are kept in a register; a risk of serious injury is notified",
  };
}
