/**
 * GET /api/tasks/stream over real HTTP (the local host) with the `eventsource` client:
 * authorization, history and live events, Last-Event-ID replay, close on a terminal
 * event (and 204 on reconnect), heartbeats, the timeout event, and cleanup on disconnect.
 */
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { eventHub } from "../../lib/stream/event-hub.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { expectEnvelope } from "../helpers/request.js";
import { completeTask, recordPayment, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

let host: LocalHost;
let admin: string;
let owner: string;
let stranger: string;

beforeAll(async () => {
  process.env.STREAM_POLL_MS = "100";
  process.env.STREAM_HEARTBEAT_SECONDS = "1";
  resetConfig();
  host = await startTestHost();
  admin = await makeKey(["admin"]);
  owner = await makeKey(["audit_only", "task_create"]);
  stranger = await makeKey(["audit_only", "task_create"]);
});
afterAll(async () => {
  await host.close();
  delete process.env.STREAM_POLL_MS;
  delete process.env.STREAM_HEARTBEAT_SECONDS;
  resetConfig();
});

const streamUrl = (taskId: string, extra = "") =>
  `${host.url}/api/tasks/stream?task_id=${encodeURIComponent(taskId)}${extra}`;

async function newTask(headers: Record<string, string> = { "x-api-key": owner }) {
  const { body } = await submitTask(validTask, headers);
  return body as { task_id: string; access_token?: string };
}

async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { res, body: (await res.json()) as any };
}

/** Reads a whole (closing) stream as text. */
async function readAll(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers });
  return { res, text: await res.text() };
}

const NAMES = [
  "stream.connected",
  "stream.timeout",
  "task.created",
  "task.accepted",
  "task.paid",
  "task.assigned",
  "task.on_site",
  "task.completed",
  "task.failed",
  "task.rejected",
];

function follow(url: string, headers: Record<string, string>) {
  const seen: { name: string; id: string; data: any }[] = [];
  const waiters: (() => void)[] = [];
  const errors: { code?: number; message?: string }[] = [];
  const es = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers ?? {}), ...headers } }),
  });
  for (const name of NAMES) {
    es.addEventListener(name, (e) => {
      seen.push({ name, id: e.lastEventId, data: JSON.parse(e.data) });
      for (const w of waiters.splice(0)) w();
    });
  }
  es.addEventListener("error", (e) => {
    errors.push({ code: (e as { code?: number }).code, message: (e as { message?: string }).message });
    for (const w of waiters.splice(0)) w();
  });
  // The bound only guards against a hang (generous for a loaded machine); a live event comes
  // within one poll (STREAM_POLL_MS, 100 ms here).
  const until = (pred: () => boolean, timeoutMs = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timeout; seen ${seen.map((s) => s.name)}`)),
        timeoutMs,
      );
      const check = () => {
        if (pred()) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  return { es, seen, errors, until };
}

describe("open streams per credential (issue 25 item 9)", () => {
  it("caps the streams one key or one access token holds open; a closed one frees its slot", async () => {
    process.env.STREAM_MAX_PER_CREDENTIAL = "2";
    resetConfig();
    const aborts: AbortController[] = [];
    const open = async (url: string, headers: Record<string, string> = {}) => {
      const abort = new AbortController();
      aborts.push(abort);
      const res = await fetch(url, { headers, signal: abort.signal });
      return { res, abort };
    };
    try {
      const keyed = await newTask();
      const anonymous = await newTask({});
      const first = await open(streamUrl(keyed.task_id), { "x-api-key": owner });
      const second = await open(streamUrl(keyed.task_id), { "x-api-key": owner });
      expect([first.res.status, second.res.status]).toEqual([200, 200]);
      const third = await open(streamUrl(keyed.task_id), { "x-api-key": owner });
      const error = expectEnvelope(await third.res.json(), third.res, 429, "RATE_LIMITED");
      expect(error.message).toMatch(/STREAM_MAX_PER_CREDENTIAL/);
      expect(third.res.headers.get("retry-after")).toBe("5");
      // Another credential has its own slots: the task's access token, and an admin key.
      const token = `&access_token=${anonymous.access_token}`;
      expect((await open(streamUrl(anonymous.task_id, token))).res.status).toBe(200);
      expect((await open(streamUrl(keyed.task_id), { "x-api-key": admin })).res.status).toBe(200);
      // Closing one of the key's streams gives its slot back (once the server sees the disconnect).
      first.abort.abort();
      await expect
        .poll(
          async () => {
            const again = await open(streamUrl(keyed.task_id), { "x-api-key": owner });
            if (again.res.status !== 200) await again.res.body?.cancel().catch(() => {});
            return again.res.status;
          },
          { timeout: 20_000, interval: 100 },
        )
        .toBe(200);
    } finally {
      for (const a of aborts) a.abort();
      delete process.env.STREAM_MAX_PER_CREDENTIAL;
      resetConfig();
    }
  });
});

describe("authorization and bad input", () => {
  it("refuses callers without the task's key or access token (403), and bad input", async () => {
    const t = await newTask();
    expectEnvelope(...swap(await getJson(streamUrl(t.task_id))), 403, "FORBIDDEN");
    expectEnvelope(...swap(await getJson(streamUrl(t.task_id), { "x-api-key": stranger })), 403, "FORBIDDEN");
    expectEnvelope(...swap(await getJson(streamUrl(t.task_id, "&access_token=tok_wrong"))), 403, "FORBIDDEN");
    expectEnvelope(
      ...swap(await getJson(`${host.url}/api/tasks/stream`, { "x-api-key": owner })),
      400,
      "MISSING_FIELD",
    );
    expectEnvelope(
      ...swap(await getJson(streamUrl("TASK-NOPE-NOPE"), { "x-api-key": owner })),
      404,
      "NOT_FOUND",
    );
    expectEnvelope(
      ...swap(await getJson(streamUrl(t.task_id), { "x-api-key": owner, "last-event-id": "abc" })),
      400,
      "INVALID_FORMAT",
    );
    expectEnvelope(
      ...swap(await getJson(streamUrl(t.task_id), { "x-api-key": owner, "x-stream-timeout": "soon" })),
      400,
      "INVALID_FORMAT",
    );
    expectEnvelope(
      ...swap(await getJson(streamUrl(t.task_id), { "x-api-key": `svc_${"Z".repeat(40)}` })),
      401,
      "UNAUTHORIZED",
    );
  });
});

function swap({ res, body }: { res: Response; body: any }): [any, Response] {
  return [body, res];
}

describe("live stream", () => {
  it("sends stream.connected, the history, live events with ids, and closes after the terminal event", async () => {
    const t = await newTask();
    const f = follow(streamUrl(t.task_id), { "x-api-key": owner });
    await f.until(() => f.seen.some((s) => s.name === "task.created"));
    expect(f.seen[0]).toMatchObject({
      name: "stream.connected",
      data: { task_id: t.task_id, status: "received" },
    });
    const created = f.seen[1]!;
    expect(created.id).toMatch(/^\d+$/);
    expect(created.data).toMatchObject({
      event: "task.created",
      data: { task_id: t.task_id, status: "received" },
    });

    await reviewTask(admin, { task_id: t.task_id, action: "approve", price_cad: 200 });
    await f.until(() => f.seen.some((s) => s.name === "task.accepted"));
    // Live, on the open connection: no error and so no reconnect (a stream that only replayed
    // history would show the event after a reconnect, hours away: X-Stream-Timeout is 4 h).
    expect(f.errors).toEqual([]);
    await recordPayment(admin, { task_id: t.task_id });
    await completeTask(admin, { task_id: t.task_id, action: "dispatch" });
    await completeTask(admin, { task_id: t.task_id, action: "on_site" });
    await completeTask(admin, {
      task_id: t.task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      operator_notes: "done",
    });
    // After the terminal event the server closes; the client reconnects with Last-Event-ID and gets 204.
    await f.until(() => f.errors.some((e) => e.code === 204));
    expect(f.es.readyState).toBe(EventSource.CLOSED);
    expect(f.seen.map((s) => s.name)).toEqual([
      "stream.connected",
      "task.created",
      "task.accepted",
      "task.paid",
      "task.assigned",
      "task.on_site",
      "task.completed",
    ]);
    const ids = f.seen.slice(1).map((s) => Number(s.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(f.seen.find((s) => s.name === "task.assigned")!.data.data.status).toBe("dispatched");
    f.es.close();
  });

  it("replays only the events after Last-Event-ID, and serves anonymous tasks by access_token", async () => {
    const t = await newTask({});
    expect(t.access_token).toMatch(/^tok_/);
    await reviewTask(admin, { task_id: t.task_id, action: "reject", reason: "no" });
    const url = streamUrl(t.task_id, `&access_token=${t.access_token}`);
    const full = await readAll(url, {});
    expect(full.res.status).toBe(200);
    expect(full.res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const ids = [...full.text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]!);
    expect(ids).toHaveLength(2);
    expect(full.text).toMatch(/event: task\.created[\s\S]*event: task\.rejected/);
    const rest = await readAll(url, { "last-event-id": ids[0]! });
    expect(rest.text).not.toContain("event: task.created");
    expect(rest.text).toContain(`id: ${ids[1]}\nevent: task.rejected`);
    const done = await fetch(url, { headers: { "last-event-id": ids[1]! } });
    expect(done.status).toBe(204);
    // The admin may follow any task.
    expect((await readAll(streamUrl(t.task_id), { "x-api-key": admin })).res.status).toBe(200);
  });

  it("sends heartbeats, then stream.timeout at X-Stream-Timeout, and clamps it to 4 h", async () => {
    const t = await newTask();
    const started = Date.now();
    const { res, text } = await readAll(streamUrl(t.task_id), {
      "x-api-key": owner,
      "x-stream-timeout": "2",
    });
    expect(res.headers.get("x-stream-timeout")).toBe("2");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(text).toContain(": heartbeat\n\n");
    expect(text).toMatch(/event: stream\.timeout\ndata: \{[^\n]*"reconnect":true/);
    const ctl = new AbortController();
    const long = await fetch(streamUrl(t.task_id), {
      headers: { "x-api-key": owner, "x-stream-timeout": "999999" },
      signal: ctl.signal,
    });
    expect(long.headers.get("x-stream-timeout")).toBe("14400");
    ctl.abort();
  });

  it("stops polling for a client that disconnects", async () => {
    const t = await newTask();
    const drained = async () => {
      const deadline = Date.now() + 20_000; // a guard only: returns as soon as the hub is empty
      while (eventHub.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return eventHub.size;
    };
    expect(await drained()).toBe(0); // the aborted fetch of the previous test was cleaned up too
    const before = 0;
    const f = follow(streamUrl(t.task_id), { "x-api-key": owner });
    await f.until(() => f.seen.some((s) => s.name === "task.created"));
    expect(eventHub.size).toBe(before + 1);
    f.es.close();
    expect(await drained()).toBe(before);
  }, 60_000); // two waits of up to 20 s each, should the hub not drain
});
