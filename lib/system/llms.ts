/** The /llms.txt overview for language models (llmstxt.org format), built from the operations. */

import { z } from "zod";
import { pricingFormula, transportRule } from "../catalog/facts.js";
import { listServices } from "../catalog/services.js";
import { getConfig, publicBaseUrl } from "../config.js";
import { KNOWN_LOCATIONS } from "../geo/known-locations.js";
import { OAUTH_SCOPES } from "../oauth/scopes.js";
import { POLICY_VERSION, REFUSING_REASON_CODES } from "../policy/screen.js";
import { RECEIPT_JWKS_PATH } from "../receipts/receipt.js";
import { taskFields, taskSubmissionSchema } from "../tasks/state/schemas.js";
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../webhooks/signature.js";
import { PUBLIC_ENDPOINTS } from "./endpoints.js";

/** One line per field of the submission body: name, (required), its description. */
function submitFields(): string {
  const json = z.toJSONSchema(taskSubmissionSchema, { io: "input", unrepresentable: "any" }) as {
    required?: string[];
  };
  const required = new Set(json.required ?? []);
  return Object.entries(taskFields)
    .map(([name, schema]) => {
      const description = (schema.meta()?.description ?? "").replace(/\s+/g, " ").trim();
      return `- ${name}${required.has(name) ? " (required)" : ""}${description ? `: ${description}` : ""}`;
    })
    .join("\n");
}

/** The Markdown text of /llms.txt. */
export function buildLlmsTxt(): string {
  const base = publicBaseUrl(getConfig());
  const services = listServices({ includeContract: false })
    .map((s) => `- ${s.id} ${s.name}: ${s.typical_duration_hours.min}-${s.typical_duration_hours.max} h`)
    .join("\n");
  const endpoints = PUBLIC_ENDPOINTS.map(
    (op) =>
      `- ${op.method} ${base}${op.path} — ${op.summary} (auth: ${op.auth}${op.scope ? `, scope ${op.scope}` : ""})`,
  ).join("\n");
  return `# Physical Task Execution Service

> Hire human operators for real-world tasks in Quebec (Greater Montreal, Laurentians, Lanaudiere up to Mont-Tremblant; hub Terrebonne). A human reviews every task. Prices in CAD; payment in USDC on Ethereum or Base, or from a prepaid CAD account.

Estimates: ${pricingFormula(true)} (CAD), exact to the cent. ${transportRule(true)}.

Prepaid accounts: a key bills and reads a prepaid account only when the account's owner (signed in, e-mail verified) linked it at ${base}/client/ or with POST ${base}/api/account-keys; the contact e-mail given at POST /api/api-keys is not verified and links nothing, so such a key pays in USDC until linked.

Personal information (Quebec Law 25): a signed-in client downloads everything held about the account with GET ${base}/api/client-account?action=export and asks for erasure with POST ${base}/api/privacy {"action":"request_erasure"}; the person in charge, what is collected, retention and rights are in /api/capabilities "privacy".

Recourse: within recourse.disputes.window_hours (capabilities; default 72) of completion, the task's owner may dispute it with POST ${base}/api/task-dispute {"task_id","reason","details","evidence_files"?} (MCP dispute_task); reason is not_done, incomplete, wrong_location, damaged, late or other. The status then carries dispute (open, then resolved: redo as a free follow-up task, partial_refund, full_refund or reject). A task is disputed once, and again only after a redo (409 CONFLICT otherwise); a key needs the task_create scope to dispute. A task finished after its execution_deadline says by how much in sla.missed_by_hours. A paid task finished after its execution_deadline is credited automatically (recourse.sla_credit: percent of what was paid per full 24 h late, capped); a task reviewed after its review_deadline may be cancelled with a full refund even after dispatch.

USDC payment: once the task status shows payment_usdc (accepted_pending_payment or counter_offered), send exactly that amount, in one transfer, to a listed wallet before expires_at. A transfer dated before the task was given that amount never pays it (it is kept for the operator to refund).

Errors always use {"error":{"code","message","field","details"},"request_id"} (MCP protocol errors on POST /api/mcp are JSON-RPC error objects). /openapi.json lists every status each operation can answer and the error codes of each. A key that is sent must be valid, even where none is required (else 401). Numbers in query strings are plain decimals (limit=20, hours=2.5): empty, blank, hex or exponent forms and fractions where an integer is expected are 400 INVALID_FORMAT. Another method on a path is 405 with Allow. Honour Retry-After on 429 and 503 and on non-terminal task status responses. Strings containing the NUL character (U+0000) are refused with 400 INVALID_FORMAT. A request with an invalid API key (401) counts against the IP's anonymous rate limit. E-mails to a requester_contact that no verified client account owns carry only the task id, status and link: poll the status endpoint for details.

Send an Idempotency-Key (e.g. a UUID) on every POST and DELETE that changes state, and after a network error, a 5xx or a 409 CONFLICT with Retry-After retry with the same key and body: the effect happens once, and a repeat returns the first answer with Idempotency-Replayed: true. Without credentials (no API key, no client session) a success that carried a secret (a new key, an access_token) is not replayed: the repeat is 409 CONFLICT without Retry-After. When storage is down, public reads sent with a key are answered as anonymous with Warning: 199 - "API key not checked: storage unavailable".

## Sandbox
Send \`X-Service-Mode: sandbox\` on POST ${base}/api/submit-task to try the whole lifecycle for free: the task id starts with SANDBOX-, each status poll advances it one step (received → accepted_pending_payment → paid → dispatched → completed, with a sample proof), and it never sends e-mail, pays, bills or reaches an operator. Any other value of the header is 422.

## Submitting a task
POST ${base}/api/submit-task with a JSON body (unknown fields are refused). Fields:
${submitFields()}
The answer (201) holds task_id, status, estimate_cad and, for anonymous submissions, an access_token for the status, stream and cancel calls. Poll GET ${base}/api/submit-task?task_id=... (honour Retry-After) or follow the event stream.
Who can read what: anyone with the task id reads only the public part of the status (task_id, service_type, status, sandbox, urgency, times, deadlines, history, _polling); the address, description, contact, callback, payment, proof files, notes and receipt are the owner's: send the key that submitted the task (or a key linked to the same client account), or the task's access_token as X-Task-Access-Token or Authorization: Bearer tok_... (a token of another task → 403). Admin keys see everything. A location that matches no place is 422 LOCATION_NOT_FOUND with \`error.input\` and up to 3 \`error.suggestions\`; a place outside the zone is 422 OUT_OF_SERVICE_ZONE.

## Payments
After a human accepts the task (status accepted_pending_payment, or counter_offered), the status response's \`payment\` object gives amount_cad, payment_usdc (exact, 6 decimals), networks (each with network, chain_id, usdc_contract, wallet) and expires_at. Send exactly payment_usdc of USDC in one transfer on one listed network to its wallet before expires_at; the checker sees it within minutes (after the network's confirmations) and the task becomes paid. Tasks of a key linked to a prepaid account are billed to the account instead (method "account", no transfer).
Or pay with x402 (when \`payment.x402_url\` is set): POST ${base}/api/task-pay?task_id=… with your key or the access_token → 402 with the x402 v2 PAYMENT-REQUIRED header (and x402Version 1 accepts[] in the body, beside the usual error envelope); sign the EIP-3009 authorization of the exact amount on one network (any x402 client, e.g. @x402/fetch) and send it again as PAYMENT-SIGNATURE (v1: X-PAYMENT). The service settles it on chain, pays the gas, and answers 200 with the paid task and PAYMENT-RESPONSE; 202 + Retry-After while the transaction is in flight; a refused payment is 402 with error.invalid_reason. Over MCP: the tool pay_task, the payload in params._meta["x402/payment"], the settlement in the result's _meta["x402/payment-response"].

## Webhook signatures
Each webhook and callback delivery is a POST of JSON with headers ${EVENT_HEADER} (event type), ${DELIVERY_HEADER} (delivery id, the same on retries), ${TIMESTAMP_HEADER} (unix seconds) and ${SIGNATURE_HEADER}: sha256=<hex>, where hex = HMAC-SHA256 keyed with the webhook's whsec_ secret over "<timestamp>.<raw body>". Verify over the raw bytes before parsing, compare in constant time, refuse timestamps more than 5 minutes off, and answer 2xx within 10 s; failed deliveries are retried (30 s, 5 min, 30 min) then dead-lettered. A task's callback_url gets the same headers without the signature (it has no secret): treat it as a hint and confirm with the status call.

## Event stream (SSE)
GET ${base}/api/tasks/stream?task_id=... answers text/event-stream: \`stream.connected\`, then the task's events (\`id:\` = sequence number, \`data:\` = the same JSON as a webhook body), a heartbeat comment every 15 s, and it closes after a terminal event. Reconnect with Last-Event-ID to get only later events; \`X-Stream-Timeout\` (seconds) bounds one connection and ends it with \`stream.timeout\`. After the terminal event a reconnect answers 204.

## MCP (POST ${base}/api/mcp)
Streamable HTTP, stateless, protocol revisions 2026-07-28 and 2025-11-25 (2025-06-18 and 2025-03-26 still served). 2026-07-28 (server/discover; every request carries its _meta envelope and the MCP-Protocol-Version, Mcp-Method, Mcp-Name headers): declare the Tasks extension io.modelcontextprotocol/tasks in your per-request capabilities and submit_task answers a task handle (resultType "task") to poll with tasks/get at pollIntervalMs (a task awaiting payment is input_required with the pay page as a URL elicitation; answer with tasks/update; tasks/cancel follows the cancellation rules); a client declaring URL elicitation gets pay_task's payment as an input_required result (the pay page, a sealed requestState to send back). Lists, discovery and reads carry ttlMs/cacheScope; _meta.traceparent is kept with the request id. 2025-11-25 (initialize): a physical task takes hours, so submit_task is an MCP task: call it task-augmented and poll tasks/get (pollInterval ms) instead of waiting; the MCP task id is the service task id. The rest of this section is the 2025-11-25 behaviour.
- Status mapping: received, paid, dispatched, on_site → working; accepted_pending_payment, counter_offered → input_required (the input is the USDC payment: tasks/result then gives the payment instructions; a sandbox task stays working, its simulated payment happens by itself, so callToolStream runs it to completed); completed → completed; failed, rejected, payment_expired → failed; cancelled → cancelled. statusMessage says what to do next.
- tasks/result once terminal: status, operator notes, proof_files (links); a task still working answers -32602 with data.poll_interval_ms. A client that declared capabilities.elicitation.url gets, for a task awaiting payment, -32042 (URL elicitation) with the task's pay page for its user; keep the Mcp-Session-Id the initialize answer gives (it remembers the capability). tasks/cancel follows the cancellation rules (free before payment). tasks/list: your key's tasks, newest first (nextCursor).
- Proof files are resources, never inline: resource_link items task://{task_id}/proof/{n} with mimeType, size and _meta.sha256; resources/read returns the blob (base64) to the task's owner (the submitting key, a key linked to the same client account, or its access_token) or an admin key.
- The USDC receipt of a paid task (GST/QST when charged) is the resource task://{task_id}/receipt: resources/read returns the invoice as application/json and as application/pdf (base64), to the same credentials; a keyless HTTP requester reads it with its access_token.
- Without a key: submit_task creates a SANDBOX task and returns access_token (in structuredContent, or _meta.access_token of a task-augmented call). Pass it as the access_token argument of check_task_status and cancel_task, and as params.access_token of tasks/get, tasks/result, tasks/cancel, tasks/list and resources/read.
- With a key: the x-api-key header, or the api_key argument (tools) / params.api_key (task and resource methods), counted on that key's rate limit. list_my_tasks lists your tasks. Rate-limited tool calls carry error.retry_after_seconds.
- A call to an unknown tool is JSON-RPC error -32602; tool failures are isError results with the HTTP error envelope in _meta (_meta.error.code) and as JSON in their last text block, never in structuredContent.

## Connect from a hosted assistant (OAuth, ${base}/mcp)
${base}/mcp is the same MCP server for clients that authorize with OAuth 2.1 instead of a key (MCP authorization, 2025-11-25). Add ${base}/mcp as a remote MCP server in the assistant; it gets 401 with WWW-Authenticate: Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", discovers the authorization server (${base}/.well-known/oauth-authorization-server), identifies itself by a client ID metadata document (an HTTPS client_id) or registers (RFC 7591), and sends the account owner to sign in and approve. Authorization code with PKCE S256 only; tokens are bound to the resource ${base}/mcp (RFC 8707) and carry scopes ${OAUTH_SCOPES.join(", ")}; refresh tokens rotate on use; revoke at /oauth/revoke or in the client dashboard (API keys). A token lacking a tool's scope: 403 with WWW-Authenticate error="insufficient_scope", scope="…". The assistant acts like a key linked to the account: it bills and reads only that account.

Policy (rules ${POLICY_VERSION}): every submission, sandbox included, is screened before a human sees it. Refused with 422 POLICY_VIOLATION (error.reason_codes, nothing stored): following, watching, tracking or filming a person; harassing, threatening or shaming someone; entering property without permission; posing as someone else, forging or defrauding; illegal goods (drugs, stolen or counterfeit goods, contraband); unlicensed weapons and explosives; deliberately dangerous or destructive acts; hidden cameras, trackers, reading someone's mail or devices, filming children. Sent to review first (status policy.outcome "review"): weapons, risky work (roofs, ice, live wires, gas, asbestos), in-person medical or legal help, vague surveillance wording, and tasks that say the person concerned must not know, ask to pass as someone else, to get in without the occupant, to handle goods without papers, or to read someone else's mail or papers. Refusing codes: ${REFUSING_REASON_CODES.join(", ")}. Reword and resubmit only if the task was misread.

Verifiable work: a completed task's status lists proof_files[] {filename, type, size, sha256, capture}; completed and failed tasks carry a receipt, a compact JWS (EdDSA/Ed25519) over task_id, status, sandbox, service_type, location, price_cad, paid, dispatched_at, completed_at, proof [{sha256, size, type}], operator_notes_sha256, site_visit (the field check-in: times, distance and accuracy in metres, within_geofence, reason; or null) and issued_at. Verify it offline with the keys at ${base}${RECEIPT_JWKS_PATH} (header kid; retired keys stay listed), then compare each file's SHA-256 with proof.

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
