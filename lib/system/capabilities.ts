/**
 * The machine-readable manifest of GET /api/capabilities (spec "System and
 * discovery"): platform, services summary, service zone, known locations, hours,
 * response times, languages, currencies, authentication (with each endpoint's scope and, for
 * admin operations, permissions, generated from the operation descriptors; the roles table), features, every task status in lifecycle order
 * (`task_statuses`, which the operator console's filters read) and the terminal ones,
 * endpoints, operations (the role table, the field check-in geofence, the site-visit rule of each
 * service, the deadline watch's share),
 * quick start, links.
 */
import { listServices, PRICING, typicalEstimateRange } from "../catalog/services.js";
import { type Config, getConfig, productionProfile, publicBaseUrl } from "../config.js";
import { TASK_STATUSES } from "../db/schema/enums.js";
import { API_VERSION } from "../descriptors/version.js";
import { CAPTURE_CLOCK_SKEW_MS } from "../field/captured-at.js";
import { HUB_NAME, KNOWN_LOCATIONS } from "../geo/known-locations.js";
import { SERVICE_ZONE } from "../geo/zone.js";
import { SCOPES } from "../http/operation.js";
import { OAUTH_SCOPES, oauthIssuer, oauthResource, protectedResourceMetadataUrl } from "../oauth/scopes.js";
import { x402Enabled } from "../payments/x402/protocol.js";
import { PERMISSIONS, ROLE_PERMISSIONS } from "../permissions.js";
import { POLICY_REASON_CODES, POLICY_VERSION, REFUSING_REASON_CODES } from "../policy/screen.js";
import { privacyNotice } from "../privacy/notice.js";
import { RECEIPT_JWKS_PATH } from "../receipts/receipt.js";
import { recourseTerms } from "../tasks/state/recourse.js";
import type { ServiceType } from "../tasks/state/schemas.js";
import { AT_RISK_WINDOW_SHARE, OPERATIONAL_HOURS, SLA } from "../tasks/state/sla.js";
import { VISIT_RULE_MEANINGS, VISIT_RULES } from "../tasks/state/visit-rules.js";
import { type EndpointEntry, PUBLIC_ENDPOINTS } from "./endpoints.js";

/** Builds the manifest for `config`. */
export function buildCapabilities(config: Config = getConfig()): Record<string, unknown> {
  const base = publicBaseUrl(config);
  const operations = PUBLIC_ENDPOINTS;
  return {
    platform: platform(config),
    services: listServices({ includeContract: false }).map((s) => ({
      id: s.id,
      name: s.name,
      typical_duration_hours: s.typical_duration_hours,
      typical_estimate_cad: typicalEstimateRange(s.id as ServiceType),
    })),
    pricing: pricing(config),
    service_zone: SERVICE_ZONE,
    known_locations: KNOWN_LOCATIONS.map((l) => ({
      name: l.name,
      distance_km_one_way: l.distance_km,
      in_service_zone: l.in_service_zone,
    })),
    operational_hours: OPERATIONAL_HOURS,
    avg_response_times: {
      review_hours: SLA.review_hours,
      review_hours_urgent: SLA.review_hours_urgent,
      execution_hours: SLA.execution_hours,
      execution_hours_urgent: SLA.execution_hours_urgent,
      payment_window_hours: SLA.payment_window_hours,
    },
    recourse: recourseTerms(config),
    languages: ["fr", "en"],
    currencies: { pricing: "CAD", payment: ["USDC"], prepaid_accounts: "CAD" },
    authentication: authentication(config, operations),
    features: features(config, base),
    task_statuses: TASK_STATUSES,
    privacy: privacyNotice(config, base),
    terminal_statuses: ["completed", "rejected", "failed", "payment_expired", "cancelled"],
    endpoints: operations.map((op) => ({ method: op.method, path: op.path, summary: op.summary })),
    operations: {
      roles: ROLE_PERMISSIONS,
      geofence_radius_m: config.GEOFENCE_RADIUS_M,
      geofence_accuracy_cap_m: config.GEOFENCE_ACCURACY_CAP_M,
      offline_capture: {
        max_age_h: config.OFFLINE_CAPTURE_MAX_AGE_H,
        clock_skew_s: CAPTURE_CLOCK_SKEW_MS / 1000,
      },
      site_visit_rules: {
        by_service: Object.fromEntries(Object.entries(VISIT_RULES).map(([id, d]) => [id, d.rule])),
        meanings: VISIT_RULE_MEANINGS,
      },
      at_risk_window_share: AT_RISK_WINDOW_SHARE,
    },
    quick_start: [
      `GET ${base}/api/services — pick a service_type`,
      `GET ${base}/api/estimate?hours=2&location=Laval — see the price in CAD`,
      `POST ${base}/api/api-keys {"name","contact"} — get an API key (optional, recommended)`,
      `POST ${base}/api/submit-task with X-Service-Mode: sandbox — try the lifecycle without paying`,
      `GET ${base}/api/submit-task?task_id=… — poll; honour Retry-After`,
    ],
    _links: links(base),
  };
}

/** Who runs the service and where (the `platform` member). */
function platform(config: Config) {
  return {
    name: "Physical Task Execution Service",
    version: API_VERSION,
    description:
      "Software agents hire human operators for real-world tasks in Quebec: site inspections, marketplace " +
      "pickups, auction proxy, IT level-1 field support, courier runs. A human reviews every task.",
    operator: config.OPERATOR_NAME,
    base_location: { city: HUB_NAME, province: "QC", country: "CA" },
    contact: config.CONTACT_EMAIL,
    website: config.WEBSITE_URL,
  };
}

/** The price formula and its rates (the `pricing` member; CAD, km/h). */
function pricing(config: Config) {
  return {
    currency: "CAD",
    ...PRICING,
    formula:
      "(base_fee + site_hours*hourly_rate + transport_hours*hourly_rate + km_roundtrip*km_rate) * urgency_multiplier",
    transport_speed_kmh: config.TRANSPORT_SPEED_KMH,
    rounding: "exact to the cent",
  };
}

/** How to authenticate and the scope of every public endpoint (the `authentication` member). */
function authentication(config: Config, operations: readonly EndpointEntry[]) {
  return {
    api_key_carriers: ["x-api-key: <API_KEY>", "Authorization: Bearer <API_KEY>"],
    key_prefix: `${config.KEY_PREFIX}_`,
    obtain: "POST /api/api-keys",
    scopes: SCOPES,
    default_scopes: ["audit_only", "task_create"],
    task_submission: `optional (recommended); anonymous submissions receive an access_token; real ones (not sandbox) are limited to ${config.ANON_SUBMISSIONS_PER_IP_PER_DAY} per IP per day`,
    task_access: {
      public: "task_id, service_type, status, sandbox, urgency, times, deadlines, history, _polling",
      owner:
        "everything: the submitting key, a key linked to the same client account, the account's client session, or the access_token (X-Task-Access-Token, Authorization: Bearer tok_…, or the access_token parameter of the stream and cancellation)",
      admin: "everything",
    },
    oauth: {
      description:
        "Hosted assistants connect to the MCP endpoint /mcp with OAuth 2.1 (MCP authorization, 2025-11-25): no key to " +
        "copy. The account owner signs in and approves; the client then acts as a key linked to that account, " +
        "listed (and revocable) in the client dashboard.",
      resource: oauthResource(config),
      protected_resource_metadata: protectedResourceMetadataUrl(config),
      authorization_server_metadata: `${oauthIssuer(config)}/.well-known/oauth-authorization-server`,
      grant: "authorization_code with PKCE S256; refresh_token (rotated on use); revocation (RFC 7009)",
      client_registration: [
        "client ID metadata document (HTTPS client_id)",
        "dynamic client registration (RFC 7591)",
      ],
      scopes: OAUTH_SCOPES,
    },
    failed_authentication:
      "a request whose key fails (401) counts against the IP's limit of requests without a key; IPv6 clients are limited per /64",
    roles: {
      description:
        "Admin operations need a permission, held by a role (docs/staff-and-audit.md); an admin key acts as owner. " +
        "A role without it → 403 FORBIDDEN naming the permission (error.permission).",
      permissions: PERMISSIONS,
      role_permissions: ROLE_PERMISSIONS,
    },
    endpoint_scopes: operations.map((op) => ({
      method: op.method,
      path: op.path,
      auth: op.auth,
      scope: op.scope,
      ...(op.permissions.length ? { permissions: op.permissions } : {}),
    })),
  };
}

/** The MCP endpoint: transport, protocol versions, task support (the `features.mcp` member). */
const MCP_FEATURE = {
  path: "/api/mcp",
  protocol_version: "2026-07-28",
  // 2026-07-28 by server/discover and the per-request envelope; the others by initialize.
  supported_protocol_versions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
  transport: "streamable-http (stateless)",
  // MCP Tasks of 2025-11-25: submit_task is task-capable; tasks/get, tasks/result, tasks/list, tasks/cancel.
  tasks: {
    task_tools: ["submit_task"],
    methods: ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"],
  },
  // 2026-07-28: the Tasks extension (SEP-2663) for a client declaring it; pay_task's multi-round-trip payment.
  tasks_extension: {
    id: "io.modelcontextprotocol/tasks",
    task_tools: ["submit_task"],
    methods: ["tasks/get", "tasks/update", "tasks/cancel"],
  },
  // Proof files and the USDC receipt are resources, readable by the submitter (key or access_token).
  resource_templates: ["task://{task_id}/proof/{n}", "task://{task_id}/receipt"],
  keyless_credential:
    "access_token (argument of check_task_status, cancel_task and pay_task; params of task methods)",
  // x402's MCP transport (docs/x402.md): the PaymentPayload in params._meta, the settlement in the result's _meta.
  x402: { tool: "pay_task", payment_meta: "x402/payment", response_meta: "x402/payment-response" },
  // GET and DELETE answer 405 (no server-initiated stream, no sessions).
  methods: ["POST"],
  accept: "application/json, text/event-stream",
};

/** The policy screen of submissions and its outcomes (the `features.policy_screen` member). */
const POLICY_SCREEN_FEATURE = {
  version: POLICY_VERSION,
  applies_to: "every submission (HTTP and MCP, sandbox included), before human review",
  outcomes: {
    allow: "reviewed as usual",
    review: "stored; the operator sees the reason codes first and may approve anyway (recorded)",
    refuse: "422 POLICY_VIOLATION with reason_codes; nothing stored",
  },
  reason_codes: POLICY_REASON_CODES,
  refusing_reason_codes: REFUSING_REASON_CODES,
  error_code: "POLICY_VIOLATION",
};

/** The signed completion receipts (JWS) and where their keys are (`base`: public base URL). */
function completionReceipts(base: string) {
  return {
    format: "compact JWS (RFC 7515), alg EdDSA (Ed25519), typ task-receipt+jws",
    jwks: `${base}${RECEIPT_JWKS_PATH}`,
    issued_for: ["completed", "failed"],
    carried_by: ["status (receipt)", "task.completed and task.failed webhooks", "task.completed callback"],
    claims: [
      "task_id",
      "status",
      "sandbox",
      "service_type",
      "location",
      "price_cad",
      "paid",
      "dispatched_at",
      "completed_at",
      "proof",
      "operator_notes_sha256",
      "site_visit",
      "visit_rule",
      "issued_at",
    ],
    proof_files: "status proof_files[]: {filename, type, size, sha256, capture}",
  };
}

/** The optional features and their parameters (the `features` member). */
function features(config: Config, base: string) {
  return {
    sandbox_mode: { header: "X-Service-Mode", value: "sandbox" },
    requester_email: {
      full_text_to: "addresses verified by a client account (POST /api/client-account, then verify-email)",
      unverified_addresses: "task id, status and status link only",
      unverified_per_address_per_day: config.UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY,
    },
    idempotent_submission: {
      header: "Idempotency-Key",
      max_length: 128,
      ttl_hours: 24,
      applies_to: "every state-changing POST and DELETE",
      replay_header: "Idempotency-Replayed",
      retry_same_key_after: ["network error", "5xx", "409 CONFLICT"],
      scope: "the API key, else the signed-in client account, else the IP",
      effect:
        "at most once per key; the first answer is replayed, secrets included, except to a caller without " +
        "credentials (409 CONFLICT without Retry-After)",
    },
    webhooks: {
      max_per_key: 5,
      signature_header: "X-Service-Signature",
      retries: 3,
      dead_letter_hours: 72,
    },
    event_stream: { path: "/api/tasks/stream", max_timeout_hours: 4 },
    usdc_payment: {
      transfer:
        "Send exactly payment.payment_usdc USDC in one transfer to a listed payment.networks[].wallet before " +
        "expires_at; the payment checker sees it after the network's confirmations.",
      x402: {
        enabled: x402Enabled(config),
        path: "/api/task-pay?task_id={task_id}",
        mcp_tool: "pay_task",
        versions: [2, 1],
        scheme: "exact",
        how:
          "POST without payment → 402 with PAYMENT-REQUIRED (x402 v2) and x402Version 1 accepts[] in the body; sign " +
          "the EIP-3009 authorization of the exact amount and send it as PAYMENT-SIGNATURE (or X-PAYMENT, v1): the " +
          "service settles it on chain, pays the gas, and answers the paid task with PAYMENT-RESPONSE. Over MCP: " +
          'pay_task, the payload in params._meta["x402/payment"].',
      },
    },
    mcp: MCP_FEATURE,
    prepaid_accounts: {
      billing_identity:
        "A key bills and reads a prepaid account only when the account's verified owner linked it (client " +
        "dashboard, or POST /api/account-keys with the client JWT). A key's contact e-mail is not verified and " +
        "links nothing; unlinked keys pay in USDC.",
      link_keys: "/api/account-keys",
    },
    web_registration: {
      path: "/client/",
      turnstile_site_key: config.TURNSTILE_SITE_KEY ?? null,
      captcha_checked: Boolean(config.TURNSTILE_SECRET_KEY) || productionProfile(config).active,
    },
    budget_pre_authorization: { validity_minutes: 5 },
    max_cost_cad: "Give max_cost_cad at submission to auto-reject a task whose estimate exceeds it.",
    task_ratings: true,
    health_check: "/api/status",
    agent_identity_header: "X-Agent-Identity: {model}/{agent_name}/{org_id}",
    policy_screen: POLICY_SCREEN_FEATURE,
    completion_receipts: completionReceipts(base),
  };
}

/** Links to the main resources under `base` (the `_links` member). */
function links(base: string) {
  return {
    self: `${base}/api/capabilities`,
    services: `${base}/api/services`,
    estimate: `${base}/api/estimate`,
    submit_task: `${base}/api/submit-task`,
    status: `${base}/api/status`,
    openapi: `${base}/openapi.json`,
    llms: `${base}/llms.txt`,
    receipt_keys: `${base}${RECEIPT_JWKS_PATH}`,
    mcp: `${base}/api/mcp`,
    privacy: `${base}/privacy`,
  };
}
