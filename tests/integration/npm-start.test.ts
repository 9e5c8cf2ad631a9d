/**
 * `npm start` for real: a child process on a free port with a fresh embedded
 * database, spoken to over HTTP, then stopped with SIGTERM.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmProcess, spawnNpm, waitForOutput } from "../helpers/npm-process.js";

const dataDir = mkdtempSync(path.join(tmpdir(), "ptes-start-"));

type Started = NpmProcess;

function start(env: Record<string, string>): Started {
  return spawnNpm(["start", "--silent"], { DATA_DIR: dataDir, ...env });
}

/**
 * Timeouts here are sized for a loaded 2-core machine: every test spawns npm and a tsx-compiled
 * server (seconds of CPU each), and a fresh embedded database is migrated at start. They only
 * guard against a hang; on an idle machine each step takes a few seconds. START_MS bounds a start
 * (a test or hook that starts a server gets 150 s); a test that spawns npm gets 120 s.
 */
const START_MS = 120_000;

function waitFor(started: Started, re: RegExp, ms = START_MS): Promise<RegExpMatchArray> {
  return waitForOutput(started, re, ms);
}

let server: Started;
let base: string;
let pid: number;

beforeAll(async () => {
  server = start({});
  const listening = await waitFor(server, /listening on (http:\/\/[\d.:]+) .*pid (\d+)\)/);
  base = listening[1]!;
  pid = Number(listening[2]);
}, 150_000);

afterAll(() => {
  try {
    process.kill(-server.child.pid!, "SIGKILL");
  } catch {
    // already stopped
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start", () => {
  it("prints its URL and serves the endpoints on the embedded database", async () => {
    expect(server.output()).toContain("database: pglite");
    expect(server.output()).toMatch(/relaxed settings on:[\s\S]*CRON_SECRET unset/);
    const services = await fetch(`${base}/api/services?contract=false`);
    expect(services.status).toBe(200);
    expect((await services.json()).count).toBe(5);
    const estimate = await (await fetch(`${base}/api/estimate?hours=2&location=Laval`)).json();
    expect(estimate.total_cad).toBe(378.33); // 50 + 200 + 45 + 83.33
    const status = await (await fetch(`${base}/api/status`)).json();
    expect(status.services.storage).toBe("operational");
  });

  it("applies the vercel.json rewrites and headers", async () => {
    const openapi = await fetch(`${base}/openapi.json`);
    expect((await openapi.json()).openapi).toBe("3.1.0");
    expect(openapi.headers.get("x-content-type-options")).toBe("nosniff");
    const llms = await fetch(`${base}/llms.txt`);
    expect(await llms.text()).toContain("# Physical Task Execution Service");
    const page = await fetch(`${base}/`);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
  });

  it("answers 404 and 405 with the envelope", async () => {
    const missing = await fetch(`${base}/api/does-not-exist`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("NOT_FOUND");
    const wrong = await fetch(`${base}/api/estimate?hours=1`, { method: "POST" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect((await wrong.json()).error.code).toBe("METHOD_NOT_ALLOWED");
  });

  it.each([
    [{ NODE_ENV: "production" }, /NODE_ENV=production/],
    [
      { DATABASE_URL: "postgres://app:pw@db.example.com:5432/app" },
      /DATABASE_URL host db\.example\.com is not loopback/,
    ],
  ])(
    "exits non-zero naming every missing variable in the production profile (%j)",
    async (env, why) => {
      const refused = start({ DATA_DIR: "memory://", ...env });
      expect(await refused.exited).toBe(1);
      const out = refused.output();
      expect(out).toMatch(why);
      expect(out).toMatch(
        /missing JWT_SECRET, WEBHOOK_SECRET_KEY, CRON_SECRET, TURNSTILE_SECRET_KEY, RECEIPT_SIGNING_KEY, UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN, RESEND_API_KEY \(or MAIL_DISABLED=true/,
      );
      expect(out).not.toContain("listening on");
      expect(out).not.toContain("pw@"); // the URL's password is never echoed
    },
    120_000,
  );

  it("refuses a second process on the same data directory with a clear error", async () => {
    const second = start({});
    const code = await second.exited;
    expect(code).toBe(1);
    expect(second.output()).toMatch(/DATA_DIR: the embedded database .* is open in another process/);
  }, 120_000);

  it("reads .env (ENV_FILE), the environment winning over it", async () => {
    const envFile = path.join(dataDir, "test.env");
    writeFileSync(envFile, "CONTACT_EMAIL=dotenv@example.com\nPORT=1\n");
    const withEnv = start({ DATA_DIR: "memory://", ENV_FILE: envFile });
    const url = (await waitFor(withEnv, /listening on (http:\/\/[\d.:]+)/))[1]!;
    try {
      expect(url).not.toMatch(/:1$/);
      expect(await (await fetch(`${url}/api/capabilities`)).text()).toContain("dotenv@example.com");
    } finally {
      process.kill(-withEnv.child.pid!, "SIGKILL");
    }
  }, 150_000);

  it("warns at start that no payment network is configured", () => {
    expect(server.output()).toContain("WARNING: no payment network configured");
  });

  it("stops cleanly when the printed pid gets SIGTERM, and releases the data directory", async () => {
    // Only the pid it printed gets the signal (as `kill <pid>` would): it is the server itself,
    // not a wrapper, so it shuts down on its own terms (says so, releases the lock, closes the
    // port) and npm exits with it.
    expect(existsSync(path.join(dataDir, "pglite.lock"))).toBe(true);
    expect(existsSync(path.join(dataDir, "local-control.json"))).toBe(true);
    process.kill(pid, "SIGTERM");
    await waitFor(server, /SIGTERM received, shutting down/);
    expect(await server.exited).toBe(0);
    const deadline = Date.now() + 30_000; // a guard only: the loop ends once the lock is gone
    while (existsSync(path.join(dataDir, "pglite.lock")) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(existsSync(path.join(dataDir, "pglite.lock"))).toBe(false);
    await expect(fetch(`${base}/api/status`)).rejects.toThrow();
  }, 120_000); // the server's shutdown (closing the embedded database) on a loaded machine
});
