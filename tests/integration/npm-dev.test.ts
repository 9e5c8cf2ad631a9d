/**
 * `npm run dev` for real: a child process with a fresh embedded database and its two local
 * Hardhat chains. Checks the banner, the bootstrap admin key and the development owner (signed in
 * with `npm run staff:totp`), `admin:create-key` and `admin:create-staff` while it runs (through
 * the control channel) and without a database, a task paid with `npm run dev:pay`,
 * the /dev/mail viewer, and that killing the printed pid stops it.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmProcess, spawnNpm, waitForOutput } from "../helpers/npm-process.js";
import { validTask } from "../helpers/tasks.js";

const dataDir = mkdtempSync(path.join(tmpdir(), "ptes-dev-"));

type Run = NpmProcess;

function run(args: string[], env: Record<string, string> = {}): Run {
  return spawnNpm(args, { DATA_DIR: dataDir, ...env });
}

/**
 * Timeouts here are sized for a loaded 2-core machine: `npm run dev` migrates a fresh embedded
 * database and starts two Hardhat chains, and most tests spawn npm with a tsx-compiled script
 * (seconds of CPU each). They only guard against a hang; on an idle machine each step takes a
 * few seconds. START_MS bounds the start (the hook gets 240 s for its three waits); a test that
 * spawns npm gets 120 s.
 */
const START_MS = 180_000;

function waitFor(started: Run, re: RegExp, ms = START_MS): Promise<RegExpMatchArray> {
  return waitForOutput(started, re, ms);
}

let server: Run;
let base: string;
let pid: number;
let bootstrapKey: string;

async function api(method: string, pathname: string, key: string, body?: unknown) {
  const res = await fetch(`${base}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  server = run(["run", "dev", "--silent"]);
  base = (await waitFor(server, /listening on (http:\/\/[\d.:]+)/))[1]!;
  bootstrapKey = (await waitFor(server, /Bootstrap admin key[^\n]*: (svc_\w+)/))[1]!;
  pid = Number((await waitFor(server, /Stop: Ctrl-C, or kill (\d+)/))[1]);
}, 240_000);

afterAll(() => {
  try {
    process.kill(-server.child.pid!, "SIGKILL");
  } catch {
    // already stopped
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run dev", () => {
  it("prints the banner: URLs, relaxed settings, two local payment networks, a payer", () => {
    const out = server.output();
    for (const p of [
      "/api/capabilities",
      "/operator/",
      "/client/",
      "/api/mcp",
      "/openapi.json",
      "/dev/mail",
    ]) {
      expect(out).toContain(`${base}${p}`);
    }
    expect(out).toContain("ALLOW_PRIVATE_CALLBACKS=true");
    expect(out).toMatch(/- ethereum: chain \d+, RPC http:\/\/127\.0\.0\.1:\d+, USDC 0x[0-9a-f]{40}/);
    expect(out).toMatch(/- base: chain \d+, RPC http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toContain("npm run dev:pay -- <task_id>");
    // The payer's private key, for an x402 client (docs/x402.md; local chains only).
    expect(out).toContain("private key  0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
    expect(out).not.toContain("WARNING: no payment network");
  });

  it("prints the bootstrap admin key once, and it works", async () => {
    expect(server.output().match(/svc_\w+/g)).toEqual([bootstrapKey]);
    // Only an admin key may grant the admin scope.
    const created = await api("POST", "/api/api-keys", bootstrapKey, {
      name: "second admin",
      contact: "ops@example.com",
      scopes: ["admin"],
    });
    expect(created.status).toBe(201);
  });

  it("admin:create-key works while the server runs, through it, and names the database", async () => {
    const cmd = run([
      "run",
      "admin:create-key",
      "--silent",
      "--",
      "--name",
      "live",
      "--contact",
      "a@example.com",
    ]);
    expect(await cmd.exited).toBe(0);
    const out = cmd.output();
    expect(out).toContain(`Created through the running server (pid ${pid}) in embedded PGlite in ${dataDir}`);
    const key = out.match(/"api_key": "(svc_\w+)"/)![1]!;
    const list = await api("GET", "/api/task-list", key);
    expect(list.status).toBe(200);
  }, 120_000);

  it("prints a ready owner sign-in once; staff:totp gives its code; admin:create-staff invites", async () => {
    const out = server.output();
    const email = out.match(/e-mail {7}(\S+)/)![1]!;
    const password = out.match(/password {5}(\S+)/)![1]!;
    const secret = out.match(/TOTP secret {2}([A-Z2-7]+)/)![1]!;
    expect(email).toBe("owner@localhost.test");
    expect(out).toMatch(/otpauth URI {2}otpauth:\/\/totp\//);
    const totp = run(["run", "staff:totp", "--silent", "--", secret]);
    expect(await totp.exited).toBe(0);
    const code = totp.output().match(/^(\d{6})$/m)![1]!;
    const res = await fetch(`${base}/api/staff-auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password, totp_code: code }),
    });
    const signed = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(signed.staff).toMatchObject({ email, role: "owner" });

    const cmd = run([
      "run",
      "admin:create-staff",
      "--silent",
      "--",
      "--email",
      "reviewer@example.com",
      "--role",
      "reviewer",
      "--name",
      "Rae",
    ]);
    expect(await cmd.exited).toBe(0);
    const invited = cmd.output();
    expect(invited).toContain(`Invited through the running server (pid ${pid})`);
    const invitation = invited.match(/"invitation_code": "(inv_\w+)"/)![1]!;
    expect(invited).toContain(`/operator/#/accept?code=${invitation}`);
    const accepted = await fetch(`${base}/api/staff-auth?action=accept-invite`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code: invitation, password: "correct horse battery" }),
    });
    expect(accepted.status).toBe(200);
    expect(((await accepted.json()) as any).otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
  }, 120_000);

  it("admin:create-key never creates a database silently", async () => {
    const empty = path.join(dataDir, "nothing-here");
    const cmd = run(
      ["run", "admin:create-key", "--silent", "--", "--name", "x", "--contact", "a@example.com"],
      {
        DATA_DIR: empty,
      },
    );
    expect(await cmd.exited).toBe(1);
    expect(cmd.output()).toContain(`No database in ${empty}/pglite: refusing to create one`);
    expect(existsSync(empty)).toBe(false);
  }, 120_000);

  it("dev:pay pays the exact amount on the local chain and the task is marked paid", async () => {
    const created = await api("POST", "/api/submit-task", bootstrapKey, { ...validTask, lang: "en" });
    expect(created.status).toBe(201);
    const id = created.body.task_id as string;
    const approved = await api("POST", "/api/task-review", bootstrapKey, { task_id: id, action: "approve" });
    expect(approved.body.status).toBe("accepted_pending_payment");
    const waiting = await api("GET", `/api/submit-task?task_id=${id}`, bootstrapKey);
    expect(waiting.body.payment.networks.map((n: { network: string }) => n.network)).toEqual([
      "ethereum",
      "base",
    ]);
    const amount = waiting.body.payment.payment_usdc as string;

    const pay = run(["run", "dev:pay", "--silent", "--", id, "--network", "base"]);
    expect(await pay.exited).toBe(0);
    expect(pay.output()).toContain(`Sent ${amount} USDC on base`);
    const paid = await api("GET", `/api/submit-task?task_id=${id}`, bootstrapKey);
    expect(paid.body.status).toBe("paid");
    expect(paid.body.payment.network).toBe("base");

    const again = run(["run", "dev:pay", "--silent", "--", id]);
    expect(await again.exited).toBe(1);
    expect(again.output()).toContain("only a task accepted and awaiting its USDC payment can be paid");
  }, 120_000);

  it("dev:pay --x402 pays through POST /api/task-pay with the official x402 client, the relayer paying the gas", async () => {
    const created = await api("POST", "/api/submit-task", bootstrapKey, { ...validTask, lang: "en" });
    const id = created.body.task_id as string;
    await api("POST", "/api/task-review", bootstrapKey, { task_id: id, action: "approve" });
    const waiting = await api("GET", `/api/submit-task?task_id=${id}`, bootstrapKey);
    expect(waiting.body.payment.x402_url).toContain(`/api/task-pay?task_id=${id}`);
    const pay = run([
      "run",
      "dev:pay",
      "--silent",
      "--",
      id,
      "--x402",
      "--key",
      bootstrapKey,
      "--network",
      "base",
    ]);
    expect(await pay.exited).toBe(0);
    expect(pay.output()).toMatch(
      new RegExp(`Paid ${id} with x402 on eip155:\\d+: 0x[0-9a-f]{64} \\(status paid\\)`),
    );
    const paid = await api("GET", `/api/submit-task?task_id=${id}`, bootstrapKey);
    expect(paid.body).toMatchObject({ status: "paid", payment: { network: "base" } });
  }, 120_000);

  it("shows the outbox at /dev/mail with clickable links, from loopback only", async () => {
    // The task e-mails of the previous test are sent by the mail worker within a second or two
    // (the 60 s only guard against a hang, on a loaded machine).
    let html = "";
    for (const deadline = Date.now() + 60_000; ; ) {
      html = await (await fetch(`${base}/dev/mail`)).text();
      if (html.includes("submit-task?task_id=") || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(html).toContain("Outbox / Boîte d'envoi");
    expect(html).toMatch(/<a href="http:\/\/127\.0\.0\.1:\d+\/api\/submit-task\?task_id=TASK-/);
    // A page of another site resolving its name to 127.0.0.1 (DNS rebinding) sends its own Host.
    const foreignHost = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${base}/dev/mail`);
      http
        .get(
          { host: url.hostname, port: url.port, path: url.pathname, headers: { host: "evil.example" } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        )
        .on("error", reject);
    });
    expect(foreignHost).toBe(404);
    const control = await fetch(`${base}/_local/tasks/x`);
    expect(control.status).toBe(404);
  }, 90_000);

  it("stops when the printed pid gets SIGTERM", async () => {
    process.kill(pid, "SIGTERM");
    await waitFor(server, /SIGTERM received, shutting down/);
    expect(await server.exited).toBe(0);
    expect(existsSync(path.join(dataDir, "pglite.lock"))).toBe(false);
    expect(existsSync(path.join(dataDir, "local-control.json"))).toBe(false);
    await expect(fetch(`${base}/api/status`)).rejects.toThrow();
  }, 120_000); // shutting down the server, its database and two chains on a loaded machine
});
