/**
 * `npm run endpoints:generate`: writes lib/system/endpoint-index.json, the public operations of the
 * service (every descriptor of lib/openapi/operations.ts but the internal ones, in that order) as
 * `{ method, path, summary, auth, scope, permissions }` with no schemas. /api/capabilities and /llms.txt list
 * endpoints from it, so those functions do not build every operation's zod schemas at import
 * (cold start, docs/performance.md). `--check` compares instead of writing and exits 1 when the
 * committed file is out of date (tests/system/endpoint-index.test.ts runs the same comparison).
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Operation, permissionsOf } from "../lib/descriptors/operation.js";
import { allOperations } from "../lib/openapi/operations.js";
import { writeOrCheck } from "./generated-file.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The committed index. */
export const ENDPOINT_INDEX_FILE = path.join(root, "lib", "system", "endpoint-index.json");

/** The index text of `operations` (default: every descriptor), as the committed file holds it. */
export function endpointIndexText(operations: readonly Operation[] = allOperations()): string {
  const entries = operations
    .filter((op) => !op.internal)
    .map((op) => ({
      method: op.method,
      path: op.path,
      summary: op.summary,
      auth: op.auth,
      scope: op.scope ?? null,
      permissions: permissionsOf(op.permission),
    }));
  // Lists of strings on one line, as the formatter (biome) writes them.
  const text = JSON.stringify(entries, null, 2).replace(
    /\[\n(?:\s+"[^"\n]*",?\n)+\s*\]/g,
    (list) => `[${(JSON.parse(list) as string[]).map((item) => JSON.stringify(item)).join(", ")}]`,
  );
  return `${text}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeOrCheck(ENDPOINT_INDEX_FILE, endpointIndexText(), "npm run endpoints:generate", root);
}
