/**
 * `X-Agent-Identity: {model}/{agent_name}/{org_id}` (spec "What the service does" 9).
 * Each part: 1 to 100 printable characters without `/` or white space. A malformed
 * value never fails a request: it is ignored for analytics and reported in a
 * `Warning` response header (RFC 9111 §5.5 style, code 199).
 */

/** A parsed identity. */
export interface AgentIdentity {
  model: string;
  agent_name: string;
  org_id: string;
}

/** Result of parsing: the identity, nothing (header absent) or the reason it was ignored. */
export type AgentIdentityResult =
  | { kind: "absent" }
  | { kind: "valid"; identity: AgentIdentity }
  | { kind: "invalid"; reason: string };

const PART = /^[!-.0-~]{1,100}$/; // printable ASCII except "/" (0x2F) and space

/** Parses the header value. */
export function parseAgentIdentity(value: string | null): AgentIdentityResult {
  if (value === null) return { kind: "absent" };
  const parts = value.trim().split("/");
  if (parts.length !== 3) {
    return { kind: "invalid", reason: "expected three parts {model}/{agent_name}/{org_id}" };
  }
  const [model, agent_name, org_id] = parts as [string, string, string];
  for (const [name, part] of [
    ["model", model],
    ["agent_name", agent_name],
    ["org_id", org_id],
  ] as const) {
    if (!PART.test(part)) {
      return { kind: "invalid", reason: `${name} must be 1-100 printable characters without '/' or spaces` };
    }
  }
  return { kind: "valid", identity: { model, agent_name, org_id } };
}

/** The `Warning` header value for an ignored identity. */
export function agentIdentityWarning(reason: string): string {
  return `199 - "X-Agent-Identity ignored: ${reason.replace(/"/g, "'")}"`;
}
