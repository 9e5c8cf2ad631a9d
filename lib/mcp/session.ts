/**
 * MCP sessions that any instance can read (docs/mcp.md "Sessions"; MCP 2025-11-25, Streamable
 * HTTP "Session Management"). The endpoint stays stateless: nothing is stored. On a successful
 * `initialize`, the answer carries `Mcp-Session-Id`: a purpose-bound JWT (lib/auth/jwt.ts,
 * audience "mcp-session", {@link MCP_SESSION_DAYS} days) holding the capabilities the client
 * declared. A later request presenting it is served knowing them (today: whether the client takes
 * URL elicitation, lib/mcp/task-methods.ts, and whether it renders MCP Apps, lib/mcp/app/task-card.ts); a session id that is forged, expired or not ours is
 * answered 404 with JSON-RPC -32001, on which a client starts a new session as the transport
 * prescribes. A request without a session id is served as before (stateless clients keep working).
 * DELETE stays 405: the server keeps nothing to end.
 */
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { declaresUiExtension, UI_EXTENSION } from "./app/task-card.js";

/** The session id's audience. */
const AUDIENCE = "mcp-session";
/** Life of a session id, days: a client past it gets 404 and initializes again. */
export const MCP_SESSION_DAYS = 30;

/** What a session id tells about its client. */
export interface McpSession {
  /** The capabilities declared at `initialize` (only the members we read are kept). */
  capabilities: ClientCapabilities;
}

/** The members of declared capabilities this server reads, kept in the session id (small). */
function kept(capabilities: ClientCapabilities | undefined): ClientCapabilities {
  // The MCP Apps extension (lib/mcp/app/task-card.ts): whether to list the card's app-only tool.
  const apps = declaresUiExtension(capabilities) ? { extensions: { [UI_EXTENSION]: {} } } : {};
  const elicitation = capabilities?.elicitation;
  if (!elicitation || typeof elicitation !== "object") return apps as ClientCapabilities;
  const modes: Record<string, object> = {};
  if ("form" in elicitation || Object.keys(elicitation).length === 0) modes.form = {};
  if ("url" in elicitation) modes.url = {};
  return { ...apps, elicitation: modes } as ClientCapabilities;
}

/** A new session id for a client that declared `capabilities` at `initialize`. */
export async function openMcpSession(
  capabilities: ClientCapabilities | undefined,
  now = new Date(),
): Promise<string> {
  const { signPurposeToken } = await import("../auth/jwt.js");
  const expiresAt = new Date(now.getTime() + MCP_SESSION_DAYS * 86_400_000);
  return signPurposeToken(AUDIENCE, { caps: kept(capabilities) }, { expiresAt, now });
}

/** The session of `sessionId`, or undefined when it is not a valid session id of ours. */
export async function readMcpSession(sessionId: string): Promise<McpSession | undefined> {
  const { verifyPurposeToken } = await import("../auth/jwt.js");
  const claims = await verifyPurposeToken(sessionId, AUDIENCE);
  if (!claims || typeof claims.caps !== "object" || claims.caps === null) return undefined;
  return { capabilities: claims.caps as ClientCapabilities };
}

/** Whether a client with `capabilities` takes URL mode elicitation (it declared `elicitation.url`). */
export function takesUrlElicitation(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as Record<string, unknown> | undefined;
  return Boolean(elicitation && typeof elicitation === "object" && "url" in elicitation);
}
