/**
 * Stoplight Prism (`@stoplight/prism-cli`) in proxy mode, as an independent reader of our
 * `/openapi.json`: it forwards every request to the service unchanged and validates each
 * response against the document, reporting what breaks it in an `sl-violations` response
 * header (a JSON array of `{ location: ["response", "body", …], severity, code, message }`).
 * Started with request validation and CORS off, so the answers are the service's own.
 *
 * The process binds to 127.0.0.1 and stops by itself: `timeout` (coreutils) ends it after
 * `lifetimeSeconds` even when the test process dies without calling `close`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const PRISM_BIN = path.join(root, "node_modules", ".bin", "prism");

/** A running Prism proxy. */
export interface PrismProxy {
  /** Base URL of the proxy (`http://127.0.0.1:PORT`). */
  url: string;
  close: () => Promise<void>;
}

/** One violation Prism reports on an answer. */
export interface PrismViolation {
  location: string[];
  severity: string;
  code?: string;
  message: string;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts Prism proxying to `upstream` and judging by `document` (an OpenAPI object).
 * @param startSeconds how long Prism may take to listen: generous, since it loads and
 *   dereferences a 400 kB document, and on a loaded 2-core machine that took over 20 s
 * @throws Error with Prism's output when it exits or does not listen in time
 */
export async function startPrismProxy(
  document: unknown,
  upstream: string,
  { startSeconds = 120, lifetimeSeconds = 1_800 } = {},
): Promise<PrismProxy> {
  const dir = mkdtempSync(path.join(tmpdir(), "prism-"));
  const file = path.join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(document));
  const port = await freePort();
  const child: ChildProcess = spawn(
    "timeout",
    [
      String(lifetimeSeconds),
      PRISM_BIN,
      "proxy",
      file,
      upstream,
      ...["--host", "127.0.0.1", "--port", String(port)],
      ...["--cors", "false", "--validate-request", "false", "--errors", "false", "-v", "warn"],
    ],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, SCARF_ANALYTICS: "false" } },
  );
  let output = "";
  child.stdout!.on("data", (d) => {
    output += d;
  });
  child.stderr!.on("data", (d) => {
    output += d;
  });
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + startSeconds * 1000;
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`Prism exited (${child.exitCode}) before listening:\n${output}`);
    }
    try {
      // Any answer means Prism listens (an undocumented path is forwarded, flagged as a request warning).
      await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(5_000) });
      return { url, close };
    } catch {
      if (Date.now() > deadline) {
        await close();
        throw new Error(`Prism did not listen within ${startSeconds} s:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * The violations of the response (not of the request) that Prism reported in `headers`,
 * errors only (Prism's warnings are about requests it cannot route, which the conformance
 * sweep sends on purpose).
 * @throws SyntaxError when the header is not JSON
 */
export function responseViolations(headers: Headers): PrismViolation[] {
  const raw = headers.get("sl-violations");
  if (!raw) return [];
  const all = JSON.parse(raw) as PrismViolation[];
  return all.filter((v) => v.location[0] === "response" && v.severity === "Error");
}
