/**
 * Completion receipts: a compact JWS (RFC 7515, Ed25519 / `EdDSA`, header `kid` and
 * `typ: task-receipt+jws`) over the facts of a finished task, issued when a task is completed
 * or failed and stored with it. Anyone verifies it offline against /.well-known/jwks.json
 * (examples/verify-receipt.ts), and checks a proof file by comparing its SHA-256 with `proof`.
 *
 * Claims (`ReceiptClaims`): task_id, status (`completed` or `failed`), sandbox (a sandbox receipt
 * proves nothing happened in the world), service_type, location {address, matched, coordinates
 * [lon, lat] or null}, price_cad (CAD, the approved price or the counter-offer), paid {method,
 * network, tx_hash}, dispatched_at, completed_at (null for a failed task), proof [{sha256, size
 * (bytes), type}] in upload order, operator_notes_sha256 (hex SHA-256 of the UTF-8 notes, or
 * null), site_visit (the field person's check-in: {checked_in_at, check_in_received_at?,
 * check_in_offline? (issue 44 item 5: an offline check-in is made at checked_in_at, received later), checked_out_at,
 * check_in_distance_m (metres), accuracy_m (metres), within_geofence, reason?}, or null without a
 * visit; issue 26 item 6), visit_rule (the service's site-visit rule that applied and how the task
 * stood against it: {rule, outcome, flags, no_visit_reason?}; issue 44 item 1; absent from receipts
 * issued before it), issued_at (ISO 8601).
 */
import { createHash } from "node:crypto";
// jose loads with the first signature or verification (cold start, docs/performance.md).
import type { JWK } from "jose";
import { getConfig } from "../config.js";
import type { Task } from "../db/schema/index.js";
import { receiptKeyRing } from "./keys.js";

/** The JWS `typ` header of a receipt. */
export const RECEIPT_TYPE = "task-receipt+jws";
/** Where the public keys are served (relative to the service origin). */
export const RECEIPT_JWKS_PATH = "/.well-known/jwks.json";

/** One proof file as a receipt names it. */
export interface ReceiptProof {
  /** Lowercase hex SHA-256 of the file's bytes. */
  sha256: string;
  /** Bytes. */
  size: number;
  /** MIME type. */
  type: string;
}

/**
 * The site visit a receipt names, times ISO 8601: the one evidence view of a visit, which the task
 * status and the `task.completed` event carry too (lib/tasks/state/site-visit.ts `SiteVisitView`).
 */
export interface ReceiptSiteVisit {
  /** When the check-in was made (the phone's `captured_at` of an offline check-in). */
  checked_in_at: string;
  /** When the server received the check-in (issue 44 item 5; absent from receipts issued before). */
  check_in_received_at?: string;
  /** The check-in was made offline and sent later (issue 44 item 5; absent before). */
  check_in_offline?: boolean;
  checked_out_at: string | null;
  /** Metres (0.1 m). */
  check_in_distance_m: number | null;
  /** Metres (0.1 m). */
  accuracy_m: number;
  within_geofence: boolean;
  /** Only for a check-in outside the geofence. */
  reason?: string;
}

/**
 * The site-visit rule a receipt names (issue 44 item 1; lib/tasks/state/visit-rules.ts): the
 * service's rule when the task finished and how its visit stood against it.
 */
export interface ReceiptVisitRule {
  rule: "required" | "optional" | "none";
  /** `inside_geofence`, `outside_geofence` (a check-in with a reason) or `no_visit`. */
  outcome: "inside_geofence" | "outside_geofence" | "no_visit";
  /** OUTSIDE_GEOFENCE: checked in outside the fence; NO_SITE_VISIT: a required visit skipped at completion. */
  flags: ("OUTSIDE_GEOFENCE" | "NO_SITE_VISIT")[];
  /** The reason an owner or admin key gave for completing without a visit. */
  no_visit_reason?: string;
}

/** The signed facts of a finished task (see the module comment). */
export interface ReceiptClaims {
  task_id: string;
  status: "completed" | "failed";
  sandbox: boolean;
  service_type: string;
  location: { address: string; matched: string | null; coordinates: [number, number] | null };
  price_cad: number | null;
  paid: { method: string | null; network: string | null; tx_hash: string | null };
  dispatched_at: string | null;
  completed_at: string | null;
  proof: ReceiptProof[];
  operator_notes_sha256: string | null;
  /**
   * The service level the task was held to (issue 27): its deadlines and the SLA credit policy in
   * force when it finished (percent of the price per full 24 h past `execution_deadline`,
   * capped). The credit itself is granted later (api/cron/sla-credits) and shown in the status.
   */
  sla: {
    review_deadline: string;
    execution_deadline: string;
    credit_percent_per_day: number;
    cap_percent: number;
    credited_cad?: number;
  };
  site_visit: ReceiptSiteVisit | null;
  /** The site-visit rule applied (absent from receipts issued before issue 44). */
  visit_rule?: ReceiptVisitRule;
  issued_at: string;
}

/** The task columns a receipt reads. */
export type ReceiptTask = Pick<
  Task,
  | "id"
  | "sandbox"
  | "serviceType"
  | "locationAddress"
  | "location"
  | "priceCad"
  | "counterOfferAmount"
  | "paymentMethod"
  | "paymentNetwork"
  | "paymentTxHash"
  | "dispatchedAt"
  | "completedAt"
  | "operatorNotes"
  | "reviewDeadline"
  | "executionDeadline"
>;

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * The claims of the receipt of `task` ending in `status` with `proof` and `siteVisit` (null
 * without one), issued at `issuedAt`.
 */
export function receiptClaims(
  task: ReceiptTask,
  status: "completed" | "failed",
  proof: readonly ReceiptProof[],
  issuedAt: Date,
  siteVisit: ReceiptSiteVisit | null = null,
  visitRule?: ReceiptVisitRule,
): ReceiptClaims {
  const location = (task.location ?? {}) as { matched?: unknown; coordinates?: unknown };
  return {
    task_id: task.id,
    status,
    sandbox: task.sandbox,
    service_type: task.serviceType,
    location: {
      address: task.locationAddress,
      matched: typeof location.matched === "string" ? location.matched : null,
      coordinates: Array.isArray(location.coordinates) ? (location.coordinates as [number, number]) : null,
    },
    price_cad: task.counterOfferAmount ?? task.priceCad ?? null,
    paid: { method: task.paymentMethod, network: task.paymentNetwork, tx_hash: task.paymentTxHash },
    dispatched_at: task.dispatchedAt?.toISOString() ?? null,
    completed_at: status === "completed" ? (task.completedAt?.toISOString() ?? null) : null,
    proof: proof.map((p) => ({ sha256: p.sha256, size: p.size, type: p.type })),
    operator_notes_sha256: task.operatorNotes ? sha256Hex(task.operatorNotes) : null,
    sla: {
      review_deadline: task.reviewDeadline.toISOString(),
      execution_deadline: task.executionDeadline.toISOString(),
      credit_percent_per_day: getConfig().SLA_CREDIT_PERCENT,
      cap_percent: getConfig().SLA_CREDIT_CAP_PERCENT,
    },
    site_visit: siteVisit,
    ...(visitRule ? { visit_rule: visitRule } : {}),
    issued_at: issuedAt.toISOString(),
  };
}

/**
 * Signs `claims` with the current receipt key.
 * @returns the compact JWS (`header.payload.signature`, base64url)
 * @throws Error when the signing key cannot be loaded (lib/receipts/keys.ts)
 */
export async function signReceipt(claims: ReceiptClaims): Promise<string> {
  const ring = await receiptKeyRing();
  const { CompactSign } = await import("jose");
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: "EdDSA", kid: ring.kid, typ: RECEIPT_TYPE })
    .sign(ring.signingKey);
}

/**
 * Verifies `jws` against the JWK Set `jwks` (as served at /.well-known/jwks.json).
 * @returns the claims and the `kid` that signed them
 * @throws jose's errors when the signature, the key or the header do not verify
 */
export async function verifyReceipt(
  jws: string,
  jwks: { keys: JWK[] },
): Promise<{ claims: ReceiptClaims; kid: string }> {
  const { compactVerify, createLocalJWKSet } = await import("jose");
  const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(jwks), {
    algorithms: ["EdDSA"],
  });
  if (protectedHeader.typ !== RECEIPT_TYPE)
    throw new Error(`not a task receipt (typ ${protectedHeader.typ})`);
  return {
    claims: JSON.parse(new TextDecoder().decode(payload)) as ReceiptClaims,
    kid: protectedHeader.kid!,
  };
}

/**
 * Whether the files `files` are exactly the proof a receipt names: same count and order, and
 * each file's SHA-256, size and type equal to the receipt's.
 */
export function proofMatches(
  claims: Pick<ReceiptClaims, "proof">,
  files: readonly { bytes: Uint8Array; type: string }[],
): boolean {
  return (
    claims.proof.length === files.length &&
    claims.proof.every((p, i) => {
      const f = files[i]!;
      return (
        p.size === f.bytes.length &&
        p.type === f.type &&
        p.sha256 === createHash("sha256").update(f.bytes).digest("hex")
      );
    })
  );
}

/**
 * The stored receipt of a task (compact JWS), or null before it completed or failed: what an MCP
 * task result or any other view attaches as is (it is signed once, at the change of status).
 */
export function receiptOf(task: Pick<Task, "receipt">): string | null {
  return task.receipt ?? null;
}

/**
 * Builds and signs the receipt of `task` (its columns as they will be after the change) ending
 * in `status` with `proof`, its site visit (null without one) and the visit rule that applied,
 * issued at `issuedAt`: the one
 * call the state layer makes.
 * @returns the compact JWS
 */
export function issueReceipt(
  task: ReceiptTask,
  status: "completed" | "failed",
  proof: readonly ReceiptProof[],
  issuedAt: Date,
  siteVisit: ReceiptSiteVisit | null = null,
  visitRule?: ReceiptVisitRule,
): Promise<string> {
  return signReceipt(receiptClaims(task, status, proof, issuedAt, siteVisit, visitRule));
}
