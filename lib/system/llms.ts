/** The /llms.txt overview for language models (llmstxt.org format), built from the operations. */

import { listServices } from "../catalog/services.js";
import { getConfig, publicBaseUrl } from "../config.js";
import { KNOWN_LOCATIONS } from "../geo/known-locations.js";
import { allOperations } from "../openapi/operations.js";
import { POLICY_VERSION, REFUSING_REASON_CODES } from "../policy/screen.js";
import { RECEIPT_JWKS_PATH } from "../receipts/receipt.js";

/** The Markdown text of /llms.txt. */
export function buildLlmsTxt(): string {
  const base = publicBaseUrl(getConfig());
  const services = listServices({ includeContract: false })
    .map((s) => `- ${s.id} ${s.name}: ${s.typical_duration_hours.min}-${s.typical_duration_hours.max} h`)
    .join("\n");
  const endpoints = allOperations()
    .filter((op) => !op.internal)
    .map(
      (op) =>
        `- ${op.method} ${base}${op.path} — ${op.summary} (auth: ${op.auth}${op.scope ? `, scope ${op.scope}` : ""})`,
    )
    .join("\n");
  return `# Physical Task Execution Service

> Hire human operators for real-world tasks in Quebec (Greater Montreal, Laurentians, Lanaudiere up to Mont-Tremblant; hub Terrebonne). A human reviews every task. Prices in CAD; payment in USDC on Ethereum or Base, or from a prepaid CAD account.

Estimates: 50 + site_hours*100 + transport_hours*100 + km_roundtrip*0.90 CAD, x1.25 when urgent, exact to the cent. Round trip = 2 x one-way km from Terrebonne; transport hours = round-trip km / 60 km/h.

Prepaid accounts: a key bills and reads a prepaid account only when the account's owner (signed in, e-mail verified) linked it at ${base}/client/ or with POST ${base}/api/account-keys; the contact e-mail given at POST /api/api-keys is not verified and links nothing, so such a key pays in USDC until linked.

USDC payment: once the task status shows payment_usdc (accepted_pending_payment or counter_offered), send exactly that amount, in one transfer, to a listed wallet before expires_at. A transfer dated before the task was given that amount never pays it (it is kept for the operator to refund).

Errors always use {"error":{"code","message","field","details"},"request_id"} (MCP protocol errors on POST /api/mcp are JSON-RPC error objects). /openapi.json lists every status each operation can answer and the error codes of each. A key that is sent must be valid, even where none is required (else 401). Numbers in query strings are plain decimals (limit=20, hours=2.5): empty, blank, hex or exponent forms and fractions where an integer is expected are 400 INVALID_FORMAT. Another method on a path is 405 with Allow. Honour Retry-After on 429 and 503 and on non-terminal task status responses. Strings containing the NUL character (U+0000) are refused with 400 INVALID_FORMAT. A request with an invalid API key (401) counts against the IP's anonymous rate limit. E-mails to a requester_contact that no verified client account owns carry only the task id, status and link: poll the status endpoint for details.

Send an Idempotency-Key (e.g. a UUID) on every POST and DELETE that changes state, and after a network error, a 5xx or a 409 CONFLICT retry with the same key and body: the effect happens once, and a repeat returns the first answer with Idempotency-Replayed: true. When storage is down, public reads sent with a key are answered as anonymous with Warning: 199 - "API key not checked: storage unavailable".

Policy (rules ${POLICY_VERSION}): every submission, sandbox included, is screened before a human sees it. Refused with 422 POLICY_VIOLATION (error.reason_codes, nothing stored): following, watching, tracking or filming a person; harassing, threatening or shaming someone; entering property without permission; posing as someone else, forging or defrauding; illegal goods (drugs, stolen or counterfeit goods, contraband); unlicensed weapons and explosives; deliberately dangerous or destructive acts; hidden cameras, trackers, reading someone's mail or devices, filming children. Sent to review first (status policy.outcome "review"): weapons, risky work (roofs, ice, live wires, asbestos), in-person medical or legal help, vague surveillance wording. Refusing codes: ${REFUSING_REASON_CODES.join(", ")}. Reword and resubmit only if the task was misread.

Verifiable work: a completed task's status lists proof_files[] {filename, type, size, sha256, capture}; completed and failed tasks carry a receipt, a compact JWS (EdDSA/Ed25519) over task_id, status, sandbox, service_type, location, price_cad, paid, dispatched_at, completed_at, proof [{sha256, size, type}], operator_notes_sha256 and issued_at. Verify it offline with the keys at ${base}${RECEIPT_JWKS_PATH} (header kid; retired keys stay listed), then compare each file's SHA-256 with proof.

## Services
${services}

## Known locations (one-way km from Terrebonne)
${KNOWN_LOCATIONS.map((l) => `${l.name} ${l.distance_km}`).join("; ")}

## Endpoints
${endpoints}

## Docs
- [OpenAPI 3.1](${base}/openapi.json)
- [Capabilities manifest](${base}/api/capabilities)
`;
}
