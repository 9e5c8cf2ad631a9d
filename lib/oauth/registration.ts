/**
 * What the registration endpoint (POST /oauth/register, RFC 7591) refuses before oidc-provider
 * reads the request: a confidential client. Clients here are public (OAuth 2.1 §2.1,
 * docs/decisions.md 18): a `token_endpoint_auth_method` other than `none` is refused with one clear
 * message (the library would refuse it too, lib/oauth/provider.ts `clientAuthMethods`, but may name
 * another member first), and so is a `client_secret`, which the library would silently drop: that
 * client would believe it has a secret.
 */

/**
 * Registration metadata `body` (JSON) as oidc-provider gets it, or the RFC 7591 §3.2.2 error
 * answer to it (oidc-provider validates the rest, with the same error format). A body without
 * `token_endpoint_auth_method` gets `"none"` written in: the library decides whether to issue a
 * secret from the body as sent, where RFC 7591 §2 makes the absent method `client_secret_basic`, and
 * would hand a public client a secret it never uses.
 * @param body the request body as sent
 * @returns `{ body }` to pass on, or `{ refused }`: 400
 *   `{"error":"invalid_client_metadata","error_description":…}` for a body whose
 *   `token_endpoint_auth_method` is present and not `none`, or that carries `client_secret` or
 *   `client_secret_expires_at`
 */
export function publicClientRegistration(body: string): { body: string } | { refused: Response } {
  let metadata: unknown;
  try {
    metadata = JSON.parse(body);
  } catch {
    return { body }; // oidc-provider answers invalid_request for a body that is not JSON
  }
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) return { body };
  const method = (metadata as { token_endpoint_auth_method?: unknown }).token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    return refused(
      `token_endpoint_auth_method ${JSON.stringify(method)} not accepted: only public clients register here (token_endpoint_auth_method "none", no secret)`,
    );
  }
  const sent = ["client_secret", "client_secret_expires_at"].filter((name) => name in metadata);
  if (sent.length > 0) {
    return refused(
      `${sent.join(" and ")} not accepted: only public clients register here (token_endpoint_auth_method "none", no secret)`,
    );
  }
  return { body: JSON.stringify({ ...metadata, token_endpoint_auth_method: "none" }) };
}

/** RFC 7591 §3.2.2: 400 with `error` and `error_description`. */
function refused(description: string): { refused: Response } {
  return {
    refused: Response.json(
      { error: "invalid_client_metadata", error_description: description.slice(0, 300) },
      { status: 400, headers: { "cache-control": "no-store" } },
    ),
  };
}
