/** Test helpers for API keys. */
import type { Scope } from "../../lib/db/schema/enums.js";
import { createApiKey } from "../../lib/keys/create-api-key.js";

let n = 0;

/** Creates a key directly (trusted path) and returns the full key string. */
export async function makeKey(scopes?: Scope[], contact = `agent${++n}@example.com`): Promise<string> {
  const created = await createApiKey({ name: `test-${n}`, contact, scopes, trusted: true });
  return created.api_key;
}

/** Headers carrying `key` the x-api-key way. */
export function keyHeaders(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { "x-api-key": key, ...extra };
}
