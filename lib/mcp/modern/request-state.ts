/**
 * The sealed `requestState` of our multi-round-trip results (MCP revision 2026-07-28, "Multi
 * round-trip requests": state that travels through the client is attacker-controlled on return and
 * must be integrity-protected when it steers authorization or business logic).
 *
 * A state is a purpose-bound JWT (lib/auth/jwt.ts: HS256 with JWT_SECRET, audience
 * {@link REQUEST_STATE_AUDIENCE}) holding the tool, the task id, a digest of the caller's
 * credential ({@link callerTag}) and a digest of the original request's arguments
 * ({@link requestDigest}); it expires after {@link REQUEST_STATE_SECONDS} (or at the end of the
 * task's payment window, whichever is first). The SDK's `requestState.verify` hook
 * ({@link verifyRequestState}) refuses a forged or expired state before the handler runs (-32602
 * "Invalid or expired requestState"); the handler refuses a valid state issued to another caller or
 * for another request ({@link checkRequestState}). Any instance verifies any state: nothing is kept.
 */
import { createHash } from "node:crypto";
import { ApiError } from "../../http/errors.js";

/** Audience of request-state tokens: a token made for anything else is not one. */
export const REQUEST_STATE_AUDIENCE = "mcp-request-state";
/** Longest life of a request state, seconds (a person opening the pay page and paying). */
export const REQUEST_STATE_SECONDS = 30 * 60;

/** What a request state carries. */
export interface RequestStateClaims {
  /** The tool whose call it continues. */
  tool: string;
  /** The service task it is about. */
  task_id: string;
  /** {@link callerTag} of the credential it was issued to. */
  who: string;
  /** {@link requestDigest} of the original call's arguments. */
  digest: string;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

/**
 * A digest of who calls: the key id when a key authenticates the call, else the task's access token
 * (digested, never stored in the clear), else "anonymous".
 */
export function callerTag(keyId: string | null | undefined, accessToken: string | undefined): string {
  if (keyId) return sha256(`key:${keyId}`);
  if (accessToken) return sha256(`token:${accessToken}`);
  return "anonymous";
}

/**
 * A digest of a tool call's arguments (credentials excluded, members sorted), so a state issued for
 * one call cannot continue another.
 */
export function requestDigest(tool: string, args: Record<string, unknown>): string {
  const kept = Object.keys(args)
    .filter((k) => k !== "api_key" && k !== "access_token")
    .sort()
    .map((k) => [k, args[k]]);
  return sha256(JSON.stringify([tool, kept]));
}

/**
 * Seals `claims` into a request state valid until `notAfter` or {@link REQUEST_STATE_SECONDS} from
 * `now`, whichever is first.
 */
export async function mintRequestState(
  claims: RequestStateClaims,
  notAfter?: Date | null,
  now = new Date(),
): Promise<string> {
  const { signPurposeToken } = await import("../../auth/jwt.js");
  const longest = new Date(now.getTime() + REQUEST_STATE_SECONDS * 1000);
  const expiresAt = notAfter && notAfter > now && notAfter < longest ? notAfter : longest;
  return signPurposeToken(REQUEST_STATE_AUDIENCE, { ...claims }, { expiresAt, now });
}

/**
 * The SDK's `requestState.verify` hook: the claims of a state we sealed.
 * @throws Error for a forged, expired, malformed or foreign state (the SDK answers -32602)
 */
export async function verifyRequestState(state: string): Promise<RequestStateClaims> {
  const { verifyPurposeToken } = await import("../../auth/jwt.js");
  const claims = await verifyPurposeToken(state, REQUEST_STATE_AUDIENCE);
  const ok =
    claims &&
    typeof claims.tool === "string" &&
    typeof claims.task_id === "string" &&
    typeof claims.who === "string" &&
    typeof claims.digest === "string";
  if (!ok) throw new Error("invalid_request_state");
  return claims as unknown as RequestStateClaims;
}

/**
 * Checks that verified `claims` continue this very call: same tool, same arguments, same caller.
 * @throws ApiError VALIDATION_ERROR (field `requestState`) naming what differs
 */
export function checkRequestState(
  claims: RequestStateClaims,
  expected: { tool: string; digest: string; who: string },
): void {
  const wrong =
    claims.tool !== expected.tool || claims.digest !== expected.digest
      ? "was issued for another call (tool or arguments differ)"
      : claims.who !== expected.who
        ? "was issued to another caller"
        : undefined;
  if (wrong) {
    throw new ApiError("VALIDATION_ERROR", `requestState ${wrong}: call again without it`, {
      field: "requestState",
    });
  }
}
