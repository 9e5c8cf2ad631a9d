/**
 * The current actor: who is making the changes of this async context (docs/staff-and-audit.md).
 * The HTTP wrapper sets it from the request's principal (lib/http/handler.ts), each scheduled job
 * from its name (lib/jobs/run-job.ts), MCP from the credential of a tool call; the audit writer
 * (lib/db/audit.ts) reads it, so no domain function takes an actor parameter.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ActorKind, Role } from "./schema/enums.js";

/** Who acts: kind, id (null for `anonymous`) and role (staff, or `owner` for an admin key). */
export interface Actor {
  kind: ActorKind;
  id: string | null;
  role: Role | null;
}

/** The actor and the request it serves (null for jobs). */
export interface ActorContext {
  actor: Actor;
  requestId: string | null;
}

/**
 * The actor of work that sets none (a script, a test calling a domain function directly): a
 * system actor named `unattributed`, so a change is still recorded rather than refused.
 */
export const UNATTRIBUTED: ActorContext = {
  actor: { kind: "system", id: "unattributed", role: null },
  requestId: null,
};

const storage = new AsyncLocalStorage<ActorContext>();

/** A scheduled job or background pass named `name` (e.g. `expire-payments`). */
export function systemActor(name: string): Actor {
  return { kind: "system", id: name, role: null };
}

/**
 * Runs `fn` with `actor` (and `requestId`) as the current actor; an inner call replaces it for
 * its own work only.
 * @returns what `fn` returns; @throws what it throws.
 */
export function runAsActor<T>(actor: Actor, requestId: string | null, fn: () => T): T {
  return storage.run({ actor, requestId }, fn);
}

/** The current actor, or `UNATTRIBUTED` outside any `runAsActor`. */
export function currentActor(): ActorContext {
  return storage.getStore() ?? UNATTRIBUTED;
}
