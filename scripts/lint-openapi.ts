/**
 * `npm run lint:openapi` (part of `npm test`): lints the served /openapi.json with Spectral's
 * `spectral:oas` ruleset (.spectral.yaml) and fails on any error. The document is built in-process
 * (`buildOpenApiDocument`), written to a temporary file and handed to the `spectral` CLI.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument } from "../lib/openapi/document.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(path.join(tmpdir(), "openapi-lint-"));
try {
  const file = path.join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(buildOpenApiDocument(), null, 2));
  // `npm run` puts node_modules/.bin on PATH.
  const result = spawnSync(
    "spectral",
    ["lint", file, "--ruleset", path.join(root, ".spectral.yaml"), "--fail-severity", "error"],
    { stdio: "inherit", cwd: root },
  );
  if (result.error) console.error(`spectral could not run (${result.error.message}): npm install first`);
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
