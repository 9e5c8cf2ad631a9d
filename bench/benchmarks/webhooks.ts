/**
 * `webhooks`: signed webhook fan-out — deliveries per second from committed task events
 * to a loopback receiver that verifies every signature.
 *
 * Setup: the service in-process (bench/lib/service.ts) on in-memory PGlite, then on
 * PostgreSQL (a scratch database on `BENCH_PG_URL`'s server, default
 * postgres://postgres@127.0.0.1:5432/postgres, dropped afterwards; `skip` leaves it out), with
 * `ALLOW_PRIVATE_CALLBACKS=true` (http:// loopback webhook URLs) and `OUTBOX_KICK=false`
 * (nothing is sent until the benchmark runs the outbox, so the work is timed as a whole);
 * one API key with the maximum of 5 webhooks, registered over HTTP (`POST /api/webhooks`),
 * all subscribed to `task.created` and pointing at one `node:http` receiver on 127.0.0.1
 * (`/hook/0` … `/hook/4`), which checks every request with `verifySignature`
 * (lib/webhooks/signature.ts) against that webhook's secret and answers 204.
 * Events: `TASKS` sandbox tasks (no e-mail) submitted over HTTP with the key, each
 * writing one `task.created` event, so each event fans out to 5 signed deliveries.
 *
 * Measured, each on a fresh batch of events:
 * 1. end to end: one `processOutbox()` (what the kick and the every-minute cron run:
 *    dispatch + delivery) until every delivery is verified by the receiver;
 * 2. the same work in two timed steps: `dispatchEvents()` until nothing is left, then
 *    `deliverDue()` until nothing is due;
 * 3. sending alone: `attemptDelivery()` (sign + HTTP POST, no database) over the rows of
 *    step 2, with `WEBHOOK_CONCURRENCY` at once — the ceiling of the database-free part.
 *
 * Goal (issue 6): ≥ 500 signed deliveries per second.
 */

import http from "node:http";
import type { AddressInfo } from "node:net";
import { onEachBackend } from "../lib/backends.js";
import { num, table } from "../lib/report.js";
import { BENCH_RATE_LIMIT_PER_MIN, startService } from "../lib/service.js";
import type { BenchContext, Benchmark, Section } from "../lib/types.js";

/** Goal: signed deliveries per second. */
export const DELIVERIES_GOAL_PER_SEC = 500;
/** Webhooks of the key (the per-key maximum). */
export const HOOKS = 5;
/** Tasks (hence `task.created` events) per measured batch: TASKS × HOOKS deliveries. */
export const TASKS = 400;

const SUBMISSION = {
  service_type: "SVC-01",
  location_address: "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4",
  task_description: "Photograph the storefront and the posted opening hours.",
  requester_contact: "bench-webhooks@example.com",
};

/** The loopback receiver and its counters. */
interface Receiver {
  url: string;
  secrets: string[];
  /** Requests whose signature verified. */
  ok: number;
  /** Requests that failed verification, by reason. */
  bad: Map<string, number>;
  /** Same (webhook, X-Service-Delivery) seen more than once. */
  duplicates: number;
  /** Time spent in `verifySignature`, ms. */
  verifyMs: number;
  reset(): void;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const { verifySignature } = await import("../../lib/webhooks/signature.js");
  const seen = new Set<string>();
  const receiver: Receiver = {
    url: "",
    secrets: [],
    ok: 0,
    bad: new Map(),
    duplicates: 0,
    verifyMs: 0,
    reset() {
      this.ok = 0;
      this.bad = new Map();
      this.duplicates = 0;
      this.verifyMs = 0;
      seen.clear();
    },
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const match = /^\/hook\/(\d+)$/.exec(req.url ?? "");
      const secret = match ? receiver.secrets[Number(match[1])] : undefined;
      const t0 = performance.now();
      const result = secret
        ? verifySignature({
            secret,
            header: req.headers["x-service-signature"] as string | undefined,
            timestamp: req.headers["x-service-timestamp"] as string | undefined,
            rawBody: Buffer.concat(chunks),
          })
        : { ok: false as const, reason: "unknown_path" };
      receiver.verifyMs += performance.now() - t0;
      if (result.ok) {
        receiver.ok++;
        const id = `${match?.[1]}:${String(req.headers["x-service-delivery"])}`;
        if (seen.has(id)) receiver.duplicates++;
        else seen.add(id);
        res.writeHead(204).end();
      } else {
        const reason = "reason" in result ? String(result.reason) : "invalid";
        receiver.bad.set(reason, (receiver.bad.get(reason) ?? 0) + 1);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return receiver;
}

/** One timed step. */
interface Step {
  label: string;
  ms: number;
  /** Deliveries the step completed (verified by the receiver, or for dispatch: rows created). */
  count: number;
  unit: string;
  note: string;
}

/** The measurements on one database. */
interface BackendResult {
  label: string;
  poolMax?: number;
  steps: Step[];
  checks: string[];
  tableState: string;
  expected: number;
  /** End-to-end deliveries verified by the receiver. */
  e2eCount: number;
  e2eRate: number;
  dispatchUs: number;
  deliverUs: number;
  sendUs: number;
  concurrency: number;
  timeoutMs: number;
}

async function measureBackend(
  ctx: BenchContext,
  label: string,
  databaseUrl: string | undefined,
): Promise<BackendResult> {
  const service = await startService({ root: ctx.root, databaseUrl });
  ctx.log(`webhooks: ${label}: service ${service.url} (database ${service.driver})`);
  const receiver = await startReceiver();
  try {
    const { createApiKey } = await import("../../lib/keys/create-api-key.js");
    const { getConfig } = await import("../../lib/config.js");
    const { getDb } = await import("../../lib/db/client.js");
    const { deliveries, taskEvents, webhooks } = await import("../../lib/db/schema/index.js");
    const { processOutbox } = await import("../../lib/events/process-outbox.js");
    const { dispatchEvents } = await import("../../lib/events/dispatch-events.js");
    const { attemptDelivery, deliverDue } = await import("../../lib/webhooks/deliver.js");
    const { decryptSecret } = await import("../../lib/webhooks/secret-box.js");
    const { count, eq, isNull } = await import("drizzle-orm");
    const config = getConfig();
    const db = await getDb();

    const key = await createApiKey({
      name: "bench webhooks",
      contact: "bench-webhooks@example.com",
      scopes: ["task_create", "audit_only"],
      trusted: true,
    });
    for (let i = 0; i < HOOKS; i++) {
      const res = await fetch(`${service.url}/api/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key.api_key },
        body: JSON.stringify({ url: `${receiver.url}/hook/${i}`, events: ["task.created"] }),
      });
      const body = (await res.json()) as { secret?: string };
      if (res.status !== 201 || !body.secret) {
        throw new Error(`webhooks: registration answered ${res.status}: ${JSON.stringify(body)}`);
      }
      receiver.secrets.push(body.secret);
    }

    /** Submits TASKS sandbox tasks with the key; their events wait undispatched. */
    const makeEvents = async (step: string) => {
      ctx.log(`webhooks: ${label}: ${step}: submitting ${TASKS} sandbox tasks (${TASKS * HOOKS} deliveries)`);
      for (let i = 0; i < TASKS; i += 10) {
        await Promise.all(
          Array.from({ length: Math.min(10, TASKS - i) }, async () => {
            const res = await fetch(`${service.url}/api/submit-task`, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                "x-api-key": key.api_key,
                "x-service-mode": "sandbox",
              },
              body: JSON.stringify(SUBMISSION),
            });
            await res.arrayBuffer();
            if (res.status !== 201) throw new Error(`webhooks: submission answered ${res.status}`);
          }),
        );
      }
      const [pending] = await db
        .select({ n: count() })
        .from(taskEvents)
        .where(isNull(taskEvents.dispatchedAt));
      if ((pending?.n ?? 0) !== TASKS) {
        throw new Error(`webhooks: ${pending?.n} undispatched events, expected ${TASKS}`);
      }
    };
    const expected = TASKS * HOOKS;
    const waitReceived = async (n: number, timeoutMs = 30_000) => {
      const t0 = performance.now();
      while (receiver.ok + [...receiver.bad.values()].reduce((a, b) => a + b, 0) < n) {
        if (performance.now() - t0 > timeoutMs) break;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const steps: Step[] = [];
    const checks: string[] = [];
    const receiverCheck = (step: string, n: number) => {
      const bad = [...receiver.bad.entries()].map(([k, v]) => `${v} ${k}`).join(", ");
      checks.push(
        `${label}, ${step}: ${num(receiver.ok)} of ${num(n)} verified${bad ? `, rejected: ${bad}` : ""}, ` +
          `${receiver.duplicates} duplicates; \`verifySignature\` took ` +
          `${num((receiver.verifyMs * 1000) / Math.max(1, receiver.ok), 1)} µs per request`,
      );
    };

    // --- 1. End to end: processOutbox -----------------------------------------------------------
    await makeEvents("end to end");
    receiver.reset();
    ctx.log(`webhooks: ${label}: end to end: processOutbox()`);
    let t0 = performance.now();
    const outbox = await processOutbox({ budgetMs: 110_000 });
    await waitReceived(expected);
    const e2eMs = performance.now() - t0;
    const e2eCount = receiver.ok;
    steps.push({
      label: "1. `processOutbox()`: dispatch + sign + POST + record",
      ms: e2eMs,
      count: e2eCount,
      unit: "deliveries",
      note: `${outbox.dispatched_events} events dispatched, ${outbox.delivered} delivered, ${outbox.retrying} retrying, ${outbox.dead} dead`,
    });
    receiverCheck("end to end", expected);

    // --- 2. The same in two steps ---------------------------------------------------------------
    await makeEvents("two steps");
    receiver.reset();
    ctx.log(`webhooks: ${label}: two steps: dispatchEvents() then deliverDue()`);
    t0 = performance.now();
    let created = 0;
    let dispatchCalls = 0;
    for (;;) {
      const d = await dispatchEvents();
      dispatchCalls++;
      created += d.deliveries;
      if (d.events === 0) break;
    }
    const dispatchMs = performance.now() - t0;
    steps.push({
      label: "2a. `dispatchEvents()` until empty (fan-out rows)",
      ms: dispatchMs,
      count: created,
      unit: "deliveries created",
      note: `${dispatchCalls} calls of ≤ 200 events, one transaction each`,
    });
    t0 = performance.now();
    let deliverCalls = 0;
    let delivered = 0;
    for (;;) {
      const w = await deliverDue();
      deliverCalls++;
      delivered += w.delivered;
      if (w.claimed === 0) break;
    }
    await waitReceived(expected);
    const deliverMs = performance.now() - t0;
    steps.push({
      label: "2b. `deliverDue()` until nothing is due (claim, sign, POST, record)",
      ms: deliverMs,
      count: receiver.ok,
      unit: "deliveries",
      note: `${deliverCalls} calls of ≤ 200 claimed, ${config.WEBHOOK_CONCURRENCY} in flight; ${delivered} recorded delivered`,
    });
    receiverCheck("two steps", expected);

    // --- 3. Sending alone, no database ----------------------------------------------------------
    const hooks = await db.select().from(webhooks);
    const secretOf = new Map(hooks.map((h) => [h.id, decryptSecret(h.secretCiphertext, h.id)]));
    const rows = await db.select().from(deliveries).where(eq(deliveries.status, "delivered")).limit(expected);
    receiver.reset();
    ctx.log(`webhooks: ${label}: send only: attemptDelivery() x ${rows.length}`);
    t0 = performance.now();
    const queue = [...rows];
    let sentOk = 0;
    await Promise.all(
      Array.from({ length: config.WEBHOOK_CONCURRENCY }, async () => {
        for (let d = queue.shift(); d; d = queue.shift()) {
          const outcome = await attemptDelivery(d, secretOf.get(d.webhookId ?? "") ?? null, config);
          if (outcome.ok) sentOk++;
        }
      }),
    );
    const sendMs = performance.now() - t0;
    steps.push({
      label: "3. `attemptDelivery()` alone (sign + POST, no database)",
      ms: sendMs,
      count: receiver.ok,
      unit: "deliveries",
      note: `${config.WEBHOOK_CONCURRENCY} in flight; ${sentOk} answered 2xx`,
    });
    receiverCheck("send only", rows.length);

    // --- State of the table ------------------------------------------------------------------------
    const statusRows = await db
      .select({ status: deliveries.status, attempts: deliveries.attempts, n: count() })
      .from(deliveries)
      .groupBy(deliveries.status, deliveries.attempts);
    return {
      label,
      ...(service.driver === "pglite" ? {} : { poolMax: config.DATABASE_POOL_MAX }),
      steps,
      checks,
      tableState: statusRows.map((r) => `${num(r.n)} ${r.status} after ${r.attempts} attempt(s)`).join(", "),
      expected,
      e2eCount,
      e2eRate: e2eCount / (e2eMs / 1000),
      dispatchUs: (dispatchMs * 1000) / Math.max(1, created),
      deliverUs: (deliverMs * 1000) / expected,
      sendUs: (sendMs * 1000) / Math.max(1, rows.length),
      concurrency: config.WEBHOOK_CONCURRENCY,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    };
  } finally {
    await receiver.close();
    await service.close();
  }
}

/** Environment of the run; restored afterwards (the other benchmarks run in the same process). */
const BENCH_ENV: Record<string, string> = {
  ALLOW_PRIVATE_CALLBACKS: "true",
  OUTBOX_KICK: "false",
  // The key makes ~1,000 requests in a minute: keep the (logged) volume-alert e-mail out of the output.
  VOLUME_ALERT_MIN_REQUESTS: "1000000000",
};

async function run(ctx: BenchContext): Promise<Section> {
  const { results, pgSkipped } = await onEachBackend(ctx, "webhooks", BENCH_ENV, (label, url) =>
    measureBackend(ctx, label, url),
  );

  const rate = (s: Step) => s.count / (s.ms / 1000);
  const stepTable = table(
    ["Database", "Step", "Count", "Seconds", "Per second", "µs each", "Details"],
    results.flatMap((r) =>
      r.steps.map((s) => [
        r.label,
        s.label,
        `${num(s.count)} ${s.unit}`,
        num(s.ms / 1000, 2),
        num(rate(s)),
        num((s.ms * 1000) / Math.max(1, s.count)),
        s.note,
      ]),
    ),
    ["left", "left", "right", "right", "right", "right", "left"],
  );
  const verdict = (r: BackendResult) =>
    `${r.label}: ${r.e2eCount === r.expected && r.e2eRate >= DELIVERIES_GOAL_PER_SEC ? "PASS" : "FAIL"} ` +
    `(${num(r.e2eRate)}/s end to end, ${num(r.e2eCount)}/${num(r.expected)} verified)`;
  const goalLine =
    `**Goal: ≥ ${DELIVERIES_GOAL_PER_SEC} signed deliveries/s — ${results.map(verdict).join("; ")}` +
    `${pgSkipped ? `; PostgreSQL NOT MEASURED (${pgSkipped})` : ""}.**`;
  const first = results[0]!;
  const notes: string[] = [
    `Fan-out: ${num(TASKS)} \`task.created\` events per batch × ${HOOKS} webhooks of one key = ${num(first.expected)} signed ` +
      "deliveries per batch, all to one loopback receiver (keep-alive connections of the delivery agent). Each step " +
      "ran on its own fresh batch.",
    ...results.map(
      (r) =>
        `Where the time goes on ${r.label} (per delivery): fan-out ${num(r.dispatchUs)} µs (row inserts, one ` +
        `transaction per 200 events); delivery ${num(r.deliverUs)} µs, of which sending alone (HMAC-SHA256, ` +
        `\`safeFetch\` with its connect-time address check, loopback HTTP, the receiver's verification) takes ` +
        `${num(r.sendUs)} µs at the same concurrency (${r.concurrency}); by difference ~${num(Math.max(0, r.deliverUs - r.sendUs))} µs ` +
        "is the database work around each send: the claim (`FOR UPDATE SKIP LOCKED` + lease update, per 200) and " +
        "one transaction per delivery recording its outcome (`attempted_at` appended, status, lease check)" +
        (r.poolMax
          ? ` (pool of ${r.poolMax} connections).`
          : ", which on the embedded database all run one after another on the process's only thread."),
    ),
    ...results.flatMap((r) => r.checks),
    ...results.map(
      (r) => `Deliveries table afterwards (${r.label}): ${r.tableState} (step 3 writes nothing).`,
    ),
    "Receiver, service and database client share one Node process and the machine's 2 CPUs (PostgreSQL's " +
      "backends too); the receiver's own work (HTTP parsing, verification) is included in every figure, which makes " +
      "them conservative. Sandbox tasks keep e-mail out of the measurement (their events go to webhooks, never to " +
      "e-mail); with real tasks the same pass also composes and sends e-mails. In production the first attempt " +
      "starts right after each commit (`kickOutbox`), so deliveries spread over time instead of arriving in one batch.",
    `Setup: \`ALLOW_PRIVATE_CALLBACKS=true\`, \`OUTBOX_KICK=false\`, \`WEBHOOK_CONCURRENCY\`=${first.concurrency}, ` +
      `\`WEBHOOK_TIMEOUT_MS\`=${first.timeoutMs}, rate limits raised to ${num(BENCH_RATE_LIMIT_PER_MIN)}/min, ` +
      "volume alerts off; PostgreSQL on a scratch database of `BENCH_PG_URL`'s server, dropped afterwards.",
  ];
  const body = [stepTable, "", goalLine, "", notes.map((l) => `- ${l}`).join("\n")].join("\n");
  return {
    name: "webhooks",
    title: "Webhook fan-out: signed deliveries per second",
    command: "npm run bench -- webhooks",
    body,
  };
}

/** The `webhooks` benchmark. */
export const webhooksBenchmark: Benchmark = {
  name: "webhooks",
  title: "Webhook fan-out: signed deliveries per second",
  description: "signed webhook deliveries per second to a loopback receiver (5 webhooks × 400 events)",
  run,
};
