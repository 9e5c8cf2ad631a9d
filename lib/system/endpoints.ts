/**
 * The public operations of the service without their schemas: method, path, summary, auth mode
 * and scope of every descriptor but the internal ones (cron jobs), in the order of
 * lib/openapi/operations.ts. Read from lib/system/endpoint-index.json, which
 * `npm run endpoints:generate` writes from the descriptors and a test keeps current
 * (tests/system/endpoint-index.test.ts), so /api/capabilities and /llms.txt list the endpoints
 * without building every operation's zod schemas at import (cold start, docs/performance.md).
 */

import type { Scope } from "../db/schema/enums.js";
import type { AuthMode, HttpMethod } from "../descriptors/operation.js";
import type { Permission } from "../permissions.js";
import index from "./endpoint-index.json" with { type: "json" };

/** One public operation. */
export interface EndpointEntry {
  method: HttpMethod;
  /** e.g. `/api/webhooks/{webhook_id}/failures`. */
  path: string;
  summary: string;
  auth: AuthMode;
  /** Scope a key needs (null: none beyond the auth mode). */
  scope: Scope | null;
  /** Admin operations: the permissions a role needs (lib/permissions.ts); empty for the others. */
  permissions: Permission[];
}

/** Every public operation, in descriptor order. */
export const PUBLIC_ENDPOINTS: readonly EndpointEntry[] = index as EndpointEntry[];
