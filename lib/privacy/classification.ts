/**
 * Personal-data classification of every table and column (Quebec's Law 25; docs/privacy.md).
 *
 * Each column of the schema is exactly one of:
 * - `personal`: identifies or describes a person, or is free text / a file a person gave us
 *   (names, e-mail and postal addresses, phone, IP, wallet address, descriptions, proof files);
 * - `secret`: a credential or its hash/ciphertext: never exported, removed on erasure;
 * - `none`: not personal by itself (ids, amounts, statuses, times, technical facts).
 *
 * Each table says how it appears in the client export (`export`: the section name, or
 * `{ excluded }` with the reason) and what erasure does to it (`erasure`). A test compares this
 * map with the drizzle schema: a new table or column that is not classified fails it, and every
 * table with a personal column must be exported or say why not.
 */

/** Class of one column. */
export type DataClass = "personal" | "secret" | "none";

/** Classification of one table, by database column name. */
export interface TableClassification {
  /** Why the table exists (the purpose the personal data serves). */
  purpose: string;
  /** Section of the client export holding its rows, or why it is not exported. */
  export: string | { excluded: string };
  /** What erasure / retention does to its rows. */
  erasure: string;
  columns: Record<string, DataClass>;
}

/** A table's classification from its column lists (every column in exactly one list; the test checks). */
function table(t: {
  purpose: string;
  export: TableClassification["export"];
  erasure: string;
  /** Column names, separated by spaces. */
  personal?: string;
  secret?: string;
  none?: string;
}): TableClassification {
  const columns: Record<string, DataClass> = {};
  for (const cls of ["personal", "secret", "none"] as const) {
    for (const c of (t[cls] ?? "").split(/\s+/).filter(Boolean)) {
      if (columns[c]) throw new Error(`column ${c} classified twice`);
      columns[c] = cls;
    }
  }
  return { purpose: t.purpose, export: t.export, erasure: t.erasure, columns };
}

/** Every table, by database name. */
export const DATA_CLASSIFICATION: Record<string, TableClassification> = {
  activity_log: table({
    purpose: "per-key analytics, abuse detection, the request-volume alert",
    export: "activity",
    erasure: "IP and agent name cleared; rows deleted after ACTIVITY_LOG_RETENTION_DAYS",
    personal: "ip agent_name",
    none: "id at request_id api_key_id method endpoint status latency_ms agent_model org_id identity_valid traceparent",
  }),
  activity_agents_daily: table({
    purpose:
      "daily roll-up of activity_log per agent identity and key: agent analytics (docs/decisions.md 21)",
    export: { excluded: "counts derived from the activity rows, which the activity section exports" },
    erasure:
      "follows activity_log by trigger: agent name cleared with the log's; a row goes when the log rows it counts are deleted (retention)",
    personal: "agent_name",
    none: "day agent_model org_id api_key_id requests errors latency_ms_sum first_at last_at",
  }),
  activity_agents_weekly: table({
    purpose:
      "weekly roll-up of activity_log per agent identity and key: agent analytics over whole weeks (docs/decisions.md 24)",
    export: { excluded: "counts derived from the activity rows, which the activity section exports" },
    erasure:
      "follows activity_log by trigger: agent name cleared with the log's; a row goes when the log rows it counts are deleted (retention)",
    personal: "agent_name",
    none: "week agent_model org_id api_key_id requests errors latency_ms_sum first_at last_at",
  }),
  activity_endpoints_daily: table({
    purpose: "daily roll-up of activity_log per organization and endpoint: organization analytics",
    export: { excluded: "counts per organization id, no personal data" },
    erasure:
      "follows activity_log by trigger: a row goes when the log rows it counts are deleted (retention)",
    none: "day org_id method endpoint requests errors",
  }),
  alerts: table({
    purpose: "operator alerts (volume spikes, unmatched payments, stale jobs)",
    export: { excluded: "operational alerts of the operator; they name an organization id at most" },
    erasure: "kept",
    none: "id kind subject details dedupe_key created_at resolved_at",
  }),
  api_keys: table({
    purpose: "authentication of agents, notifications to the key's contact",
    export: "api_keys",
    erasure: "keys linked to the account revoked; name, contact and creating IP replaced",
    personal: "name contact created_ip",
    secret: "key_hash",
    none: "id account_id key_hint scopes created_by_key_id created_at last_used_at revoked_at",
  }),
  auth_tokens: table({
    purpose: "one-time e-mail verification and password-reset codes",
    export: { excluded: "hashes of one-time codes only" },
    erasure: "deleted",
    secret: "token_hash",
    none: "account_id purpose expires_at used_at created_at",
  }),
  chain_cursors: table({
    purpose: "payment checker progress",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "network chain_id last_scanned_block last_block_hash updated_at",
  }),
  chain_transfers: table({
    purpose: "USDC payments received (accounting record; refunds go to the payer)",
    export: "chain_transfers",
    erasure: "kept: the payer address is public on the chain and part of the payment record",
    personal: "from_address",
    none: "id network chain_id tx_hash log_index block_number block_hash block_time to_address token_address amount_micro task_id status reason created_at updated_at",
  }),
  client_accounts: table({
    purpose: "prepaid account, billing identity, client login",
    export: "account",
    erasure: "name, e-mail, company, phone, address and password replaced or cleared; account suspended",
    personal: "contact_name email company_name phone address_line1 address_line2 city postal_code",
    secret: "password_hash",
    none: "id org_id password_changed_at province lang tos_accepted_at status discount_percent email_verified_at api_key_id created_at updated_at",
  }),
  client_sessions: table({
    purpose: "client dashboard sessions (logout, revocation)",
    export: "sessions",
    erasure: "deleted",
    none: "id account_id created_at expires_at revoked_at",
  }),
  deliveries: table({
    purpose: "webhook and callback deliveries of task events",
    export: "deliveries",
    erasure: "deleted; dead letters expire after DEAD_LETTER_RETENTION_HOURS",
    personal: "url payload",
    none: "id event_id webhook_id kind task_id event status attempts attempted_at last_http_status last_error next_attempt_at locked_until delivered_at dead_at expires_at fallback_email_sent created_at",
  }),
  emails: table({
    purpose: "e-mails sent to clients and requesters",
    export: "emails",
    erasure:
      "the account's and its tasks' deleted; other tenants' task e-mails to its address: the recipient replaced once the task is terminal",
    personal: "to_address subject text_body html_body attachments",
    none: "id template lang task_id account_id dedupe_key status attempts provider provider_message_id error next_attempt_at locked_until created_at sent_at",
  }),
  erasure_requests: table({
    purpose: "erasure requests and their processing (proof of compliance)",
    export: "erasure_requests",
    erasure: "kept (holds no personal value)",
    none: "id account_id status requested_at due_at processed_at processed_by early_reason balance_to_refund_cad withdrawn_at",
  }),
  exchange_rates: table({
    purpose: "CAD/USD rates",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "id pair rate source as_of fetched_at",
  }),
  export_jobs: table({
    purpose:
      "large exports run in chunks (Law 25 access requests, compliance exports): progress and where to send the link",
    export: {
      excluded:
        "the job of an export, not a record about the person: the export it produces is the access answer",
    },
    erasure:
      "deleted with their file when the account is erased (its Law 25 jobs, and every compliance export whose rows include the account's tasks or activity); files deleted when their link expires",
    personal: "notify_email",
    none:
      "id kind format account_id requested_by lang params active_key status section after section_rows counts parts bytes " +
      "attempts next_attempt_at locked_until error audit_id created_at completed_at expires_at",
  }),
  export_job_parts: table({
    purpose: "the file an export job produces, in parts",
    export: { excluded: "a copy of an export already given to the requester; deleted when its link expires" },
    erasure: "deleted with the job (on the account's erasure, or when its link expires)",
    personal: "content",
    none: "job_id seq",
  }),
  idempotency_keys: table({
    purpose: "replay of retried requests (24 h)",
    export: { excluded: "kept 24 h only; the stored answers are encrypted copies of other records" },
    erasure: "expire after 24 h",
    personal: "scope",
    secret: "response_body",
    none: "key request_hash endpoint state response_status response_headers locked_until created_at expires_at",
  }),
  invoices: table({
    purpose: "accounting records (deposits, charges, USDC receipts, credit notes)",
    export: "invoices",
    erasure:
      "kept for ACCOUNTING_RETENTION_YEARS; hold the account id, service lines and payment facts, no personal value",
    none:
      "id account_id task_id kind amount_cad lines issued_at number subtotal_cad gst_cad qst_cad " +
      "payment_network payment_tx_hash usdc_micro exchange_rate refers_to_invoice_id",
  }),
  invoice_sequences: table({
    purpose: "gapless invoice numbers per year",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "year last_number",
  }),
  policy_counters: table({
    purpose:
      "daily counts of submissions the policy screen refused, by reason (nothing of the submission kept)",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "day version reason_code count",
  }),
  audit_log: table({
    purpose: "audit trail: who changed what (operator accountability, append-only)",
    export: {
      excluded:
        "the operator's accountability record; it holds ids, amounts and statuses, no information about the person beyond the ids the export already gives",
    },
    erasure: "kept (append-only; ids, amounts and statuses only)",
    none: "id at actor_kind actor_id actor_role action task_id target_kind target_id details request_id",
  }),
  job_runs: table({
    purpose: "scheduled job status",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "job last_run_at last_success_at last_status last_error duration_ms details locked_until",
  }),
  ledger_entries: table({
    purpose: "prepaid balance (accounting record)",
    export: "ledger_entries",
    erasure: "kept for ACCOUNTING_RETENTION_YEARS; the operator's description may name a payment reference",
    personal: "description",
    none: "id account_id kind amount_cad task_id invoice_id created_by_key_id created_at",
  }),
  payment_amounts: table({
    purpose: "USDC amounts given to tasks",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "task_id amount_micro assigned_at released_at",
  }),
  preauthorizations: table({
    purpose: "budget pre-authorizations",
    export: "preauthorizations",
    erasure: "agent id replaced",
    personal: "agent_id",
    none: "id account_id api_key_id amount_cad valid_until consumed_by_task_id consumed_at created_at",
  }),
  privacy_audit: table({
    purpose: "audit of privacy operations",
    export: "privacy_audit",
    erasure: "kept (ids and counts only)",
    none: "id at action account_id actor details",
  }),
  privacy_incidents: table({
    purpose: "register of confidentiality incidents (operator only)",
    export: { excluded: "the operator's register of incidents, not a record about one client" },
    erasure: "kept",
    personal: "description",
    none: "id occurred_at discovered_at information_concerned persons_concerned risk_of_serious_injury measures commission_notified_at persons_notified_at recorded_by_key_id created_at",
  }),
  proof_files: table({
    purpose: "proof of the work done (photos, reports)",
    export: "proof_files",
    erasure: "deleted; also deleted after PROOF_FILE_RETENTION_DAYS",
    personal: "filename content capture",
    none: "id task_id mime_type size_bytes sha256 position device_captured_at created_at",
  }),
  task_disputes: table({
    purpose: "disputes of completed tasks and how staff resolved them (issue 27)",
    export: "task_disputes",
    erasure:
      "details replaced, staff's reason cleared; ids, reasons, resolutions and amounts kept (accounting)",
    personal: "details resolution_reason",
    none: "id task_id status reason opened_at resolution refund_amount_cad refund_usdc_micro follow_up_task_id resolved_at",
  }),
  dispute_files: table({
    purpose: "evidence files the requester gave with a dispute",
    export: "dispute_files",
    erasure: "deleted",
    personal: "filename content",
    none: "id dispute_id mime_type size_bytes sha256 position created_at",
  }),
  sla_credits: table({
    purpose: "SLA credits of late tasks (accounting record)",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "task_id days_late percent amount_cad usdc_micro invoice_id created_at",
  }),
  sla_credit_checks: table({
    purpose: "late tasks the SLA-credit job found nothing to credit (so it does not scan them again)",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "task_id outcome checked_at",
  }),
  task_refunds: table({
    purpose: "refunds of a task given, owed and settled, its running total (accounting record)",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "id task_id kind source dispute_id amount_cad usdc_micro outcome settlement_id tx_hash invoice_id created_at",
  }),
  task_events: table({
    purpose: "task history and the notification outbox",
    export: "task_events",
    erasure: "payload replaced by a de-identified marker",
    personal: "payload",
    none: "id seq task_id type task_status api_key_id account_id created_at dispatched_at",
  }),
  task_scores: table({
    purpose: "requester ratings",
    export: "task_scores",
    erasure: "feedback cleared",
    personal: "feedback",
    none: "task_id api_key_id rating outcome created_at",
  }),
  oauth_artifacts: table({
    purpose:
      "the OAuth authorization server's codes, tokens, grants, sessions and registered clients (MCP authorization)",
    export: {
      excluded: "credentials and their state; the grants appear in the export as the keys that back them",
    },
    erasure:
      "deleted with the account's keys (a revoked key ends its grants; expired rows are purged by expire-payments)",
    secret: "id payload uid user_code",
    none: "kind grant_id expires_at consumed_at created_at",
  }),
  oauth_grant_keys: table({
    purpose: "which API key backs each OAuth grant (a consent acts as a key linked to the account)",
    export: { excluded: "the backing keys are in the export's keys section; this table only links ids" },
    erasure: "deleted with the key or the account",
    none: "grant_id key_id account_id client_id created_at",
  }),
  x402_settlements: table({
    purpose:
      "x402 payments being settled on-chain (POST /api/task-pay): the signed authorization and its transaction, so a settlement happens once",
    export: {
      excluded:
        "a settled payment appears in the export as its chain transfer (chain_transfers); this table holds the authorization's signature, a payment credential",
    },
    erasure: "kept: part of the payment record (the payer address is public on the chain)",
    personal: "payer",
    secret: "signature nonce",
    none: "id task_id network chain_id x402_version amount_micro status tx_hash error_reason created_at updated_at",
  }),
  staff_members: table({
    purpose: "the operator's staff: sign-in, role, the display name requesters may see",
    export: {
      excluded:
        "the operator's employees, not the client's data (their own access requests go to the operator)",
    },
    erasure: "kept while employed; an owner suspends an account (no client erasure reaches it)",
    personal: "email display_name",
    secret: "password_hash totp_secret",
    none: "id role status totp_enabled_at totp_last_step last_sign_in_at suspended_at created_at updated_at",
  }),
  staff_invitations: table({
    purpose: "one-time invitation codes of new staff (hash only)",
    export: { excluded: "the operator's employees; hashes of one-time codes only" },
    erasure: "kept with the staff account",
    secret: "code_hash",
    none: "staff_id expires_at used_at created_at",
  }),
  staff_sessions: table({
    purpose: "staff sessions (sign-out, suspension)",
    export: { excluded: "the operator's employees; hashes of session tokens only" },
    erasure: "kept with the staff account",
    secret: "token_hash",
    none: "id staff_id created_at expires_at revoked_at",
  }),
  staff_passkeys: table({
    purpose: "staff passkeys (WebAuthn public keys) for sign-in (issue 44 item 3)",
    export: { excluded: "the operator's employees' devices, not the client's data" },
    erasure: "kept with the staff account (deleted with it)",
    personal: "name",
    none: "id staff_id public_key counter transports device_type backed_up created_at last_used_at",
  }),
  staff_webauthn_challenges: table({
    purpose: "single-use WebAuthn challenges of passkey registration and sign-in (5 minutes)",
    export: { excluded: "short-lived sign-in state, hashes only" },
    erasure: "kept until used or expired (deleted with the staff account)",
    secret: "challenge_hash",
    none: "purpose staff_id created_at expires_at used_at",
  }),
  staff_recovery_codes: table({
    purpose: "staff recovery codes (one-time, in place of a TOTP code)",
    export: { excluded: "the operator's employees; hashes of codes only" },
    erasure: "kept with the staff account (replaced as a set)",
    secret: "code_hash",
    none: "staff_id created_at used_at",
  }),
  push_subscriptions: table({
    purpose:
      "Web Push to staff sessions (issue 44 item 6): where a staff member's browser receives notifications",
    export: { excluded: "the operator's employees' browsers, not the client's" },
    erasure:
      "deleted with the session's sign-out, the staff member's suspension, or a 404/410 from the push service",
    secret: "endpoint p256dh auth",
    none: "id staff_id session_id lang created_at",
  }),
  push_messages: table({
    purpose: "push notifications queued for staff (an assignment, a task at risk, a review waiting)",
    export: { excluded: "messages to the operator's employees; the task id and fixed words only" },
    erasure: "deleted with the subscription; sent and failed rows purged after 7 days",
    none: "id subscription_id kind task_id dedupe_key payload status attempts next_attempt_at locked_until last_status error sent_at created_at",
  }),
  push_review_notices: table({
    purpose: "tasks whose review wait was pushed to the reviewers (once per task)",
    export: { excluded: "no personal data" },
    erasure: "deleted with the task",
    none: "task_id notified_at",
  }),
  site_visits: table({
    purpose:
      "evidence that the assigned field person was on site: check-in and check-out positions and times",
    export: {
      excluded:
        "positions and words of the operator's field staff, not of the client; the task's status shows the client the visit's times, distance and geofence result",
    },
    erasure:
      "kept with the task as evidence of the work (positions of the operator's staff at the task's place, not the client's)",
    personal: "check_in_latitude check_in_longitude check_out_latitude check_out_longitude reason",
    none: "task_id staff_id checked_in_at check_in_received_at check_in_offline check_in_accuracy_m check_in_distance_m within_geofence checked_out_at check_out_accuracy_m check_out_distance_m created_at",
  }),
  tasks: table({
    purpose: "the tasks ordered: where, what, who to tell, payment and refund",
    export: "tasks",
    erasure:
      "the account's tasks: address, description, contact, instructions, callback, identity, policy record, receipt and every free text replaced or cleared; other tenants' tasks naming its e-mail: the requester contact replaced once terminal",
    personal:
      "location_address task_description requester_contact special_instructions callback_url agent_identity location review_reason operator_notes failure_reason no_visit_reason cancel_reason refund_note policy receipt",
    secret: "access_token_hash",
    none: "id sandbox service_type status urgency budget_limit max_cost_cad preferred_output lang api_key_id org_id estimate_cad estimate needs_counter_offer price_cad counter_offer_amount review_deadline execution_deadline reviewed_at exchange_rate rate_source rate_as_of payment_usdc_micro payment_expires_at payment_method account_id payment_network payment_tx_hash receipt_invoice_id paid_at dispatched_at on_site_at completed_at cancelled_at refund_status refund_amount_cad refund_settled_at assigned_staff_id assigned_at at_risk_at refund_tx_hash refund_usdc_micro redo_of_task_id visit_rule version created_at updated_at",
  }),
  tasks_paid_daily: table({
    purpose:
      "daily roll-up of the paid tasks per service type and status: the dashboard's revenue and outcomes (docs/decisions.md 23)",
    export: { excluded: "counts and sums derived from the tasks, which the tasks section exports" },
    erasure: "follows tasks by trigger; holds no personal data",
    none: "day service_type status tasks revenue_cad compacted",
  }),
  tasks_paid_clients_daily: table({
    purpose: "daily roll-up of the paid tasks per API key or requester contact: the dashboard's top clients",
    export: { excluded: "counts and sums derived from the tasks, which the tasks section exports" },
    erasure:
      "follows tasks by trigger: a contact replaced on the account's tasks moves their counts to the replacement, and the row naming it goes",
    personal: "requester_contact",
    none: "day api_key_id tasks revenue_cad",
  }),
  tasks_paid_clients_weekly: table({
    purpose: "tasks_paid_clients_daily summed per ISO week: the whole weeks of the dashboard's top clients",
    export: { excluded: "counts and sums derived from the tasks, which the tasks section exports" },
    erasure:
      "follows tasks by trigger: a contact replaced on the account's tasks moves their counts to the replacement, and the row naming it goes",
    personal: "requester_contact",
    none: "week api_key_id tasks revenue_cad",
  }),
  rollup_versions: table({
    purpose:
      "version counters of roll-ups whose closed weeks the dashboard keeps in memory (docs/decisions.md 25)",
    export: { excluded: "no personal data" },
    erasure: "kept",
    none: "name version",
  }),
  tasks_created_daily: table({
    purpose: "daily roll-up of the tasks created per status: the dashboard's tasks created",
    export: { excluded: "counts derived from the tasks, no personal data" },
    erasure: "follows tasks by trigger; holds no personal data",
    none: "day status tasks compacted",
  }),
  tasks_org_daily: table({
    purpose:
      "daily roll-up of the tasks created per organization and status: the tasks of organization analytics",
    export: { excluded: "counts per organization id, no personal data" },
    erasure: "follows tasks by trigger; holds no personal data",
    none: "org_id day status tasks paid_revenue_cad compacted",
  }),
  webhooks: table({
    purpose: "webhooks registered by the client's keys",
    export: "webhooks",
    erasure: "deleted (marked deleted, URL replaced)",
    personal: "url",
    secret: "secret_ciphertext",
    none: "id api_key_id events created_at deleted_at",
  }),
};

/** Database names of the columns of `table` classified `cls`. */
export function columnsOfClass(table: string, cls: DataClass): string[] {
  const entry = DATA_CLASSIFICATION[table];
  if (!entry) return [];
  return Object.entries(entry.columns)
    .filter(([, c]) => c === cls)
    .map(([name]) => name);
}
