/**
 * The activity log's batching: every queued row reaches the database (COPY on PGlite,
 * INSERT … json_to_recordset on PostgreSQL), awkward text survives the CSV/JSON encoding, rows
 * carry the time they were queued, flushActivity() resolves only once rows are written,
 * and a full buffer or the batch delay writes without an explicit flush.
 */
import { asc, count, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  BATCH_ROWS,
  CHUNK_ROWS,
  csvField,
  flushActivity,
  PGLITE_BATCH_DELAY_MS,
  recordActivity,
  resetActivityBatching,
  SERVER_BATCH_DELAY_MS,
} from "../../lib/activity/record-activity.js";
import { getDb } from "../../lib/db/client.js";
import { activityLog } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";

const db = useTestDatabase();

function entry(endpoint: string, i: number, extra: Partial<typeof activityLog.$inferInsert> = {}) {
  return {
    requestId: `req_${endpoint}_${i}`,
    apiKeyId: null,
    ip: "127.0.0.1",
    method: "GET",
    endpoint,
    status: 200,
    latencyMs: i,
    agentModel: null,
    agentName: null,
    orgId: null,
    identityValid: null,
    ...extra,
  };
}

async function rowsOf(endpoint: string) {
  const database = await getDb();
  return database
    .select()
    .from(activityLog)
    .where(eq(activityLog.endpoint, endpoint))
    .orderBy(asc(activityLog.id));
}

async function countOf(endpoint: string): Promise<number> {
  const database = await getDb();
  const [row] = await database
    .select({ n: count() })
    .from(activityLog)
    .where(eq(activityLog.endpoint, endpoint));
  return row?.n ?? 0;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("csvField", () => {
  it.each([
    [null, ""],
    [undefined, ""],
    ["", '""'],
    ['say "hi", then\nleave', '"say ""hi"", then\nleave"'],
    [true, "t"],
    [false, "f"],
    [42, "42"],
    [new Date("2026-01-02T03:04:05.678Z"), "2026-01-02T03:04:05.678Z"],
  ])("encodes %j as %j", (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });
});

describe("recordActivity / flushActivity", () => {
  it("writes awkward text, nulls, booleans and explicit times exactly, without falling back", async () => {
    const warn = vi.spyOn(console, "warn");
    const error = vi.spyOn(console, "error");
    const at = new Date("2026-03-08T07:30:00.123Z");
    const awkward = [
      entry("/t/awkward", 0, {
        agentModel: 'quote " comma , semicolon ;',
        agentName: "",
        orgId: "line\nbreak\r\n",
      }),
      entry("/t/awkward", 1, {
        agentModel: "back\\slash \\N NULL",
        agentName: "tab\there",
        orgId: "émoji 🚀 ß",
      }),
      entry("/t/awkward", 2, { apiKeyId: "key_x", identityValid: true, at }),
      entry("/t/awkward", 3, { identityValid: false, status: 599, latencyMs: 2_000_000_000 }),
    ];
    for (const e of awkward) recordActivity(e);
    await flushActivity();
    const rows = await rowsOf("/t/awkward");
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatchObject({
      agentModel: 'quote " comma , semicolon ;',
      agentName: "",
      orgId: "line\nbreak\r\n",
    });
    expect(rows[1]).toMatchObject({
      agentModel: "back\\slash \\N NULL",
      agentName: "tab\there",
      orgId: "émoji 🚀 ß",
    });
    expect(rows[2]).toMatchObject({ apiKeyId: "key_x", identityValid: true, agentModel: null, orgId: null });
    expect(rows[2]!.at.toISOString()).toBe(at.toISOString());
    expect(rows[3]).toMatchObject({
      identityValid: false,
      status: 599,
      latencyMs: 2_000_000_000,
      apiKeyId: null,
    });
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
  });

  it("writes every row of a batch larger than one chunk, with the time it was queued", async () => {
    const n = CHUNK_ROWS * 2 + 37;
    const before = Date.now();
    for (let i = 0; i < n; i++) recordActivity(entry("/t/many", i));
    const queuedBy = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await flushActivity();
    const rows = await rowsOf("/t/many");
    expect(rows).toHaveLength(n);
    expect(new Set(rows.map((r) => r.requestId)).size).toBe(n);
    for (const row of rows) {
      // Stamped when queued, not when written 30 ms later (1 ms slack for rounding).
      expect(row.at.getTime()).toBeGreaterThanOrEqual(before - 1);
      expect(row.at.getTime()).toBeLessThanOrEqual(queuedBy + 1);
    }
  });

  it("resolves concurrent flushes only once their rows are written", async () => {
    recordActivity(entry("/t/concurrent", 0));
    const first = flushActivity();
    recordActivity(entry("/t/concurrent", 1));
    recordActivity(entry("/t/concurrent", 2));
    const second = flushActivity();
    await first;
    expect(await countOf("/t/concurrent")).toBeGreaterThanOrEqual(1);
    await second;
    expect(await countOf("/t/concurrent")).toBe(3);
    await flushActivity(); // nothing queued: resolves at once
    expect(await countOf("/t/concurrent")).toBe(3);
  });

  it("writes without an explicit flush once BATCH_ROWS rows wait", async () => {
    for (let i = 0; i < BATCH_ROWS; i++) recordActivity(entry("/t/full", i));
    const deadline = Date.now() + 10_000;
    while ((await countOf("/t/full")) < BATCH_ROWS && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await countOf("/t/full")).toBe(BATCH_ROWS);
  });

  it("writes without an explicit flush after the driver's batch delay", async () => {
    resetActivityBatching();
    recordActivity(entry("/t/timer-first", 0));
    await flushActivity(); // the first write learns the driver
    const queued = Date.now();
    recordActivity(entry("/t/timer", 0));
    const delay = db.handle().driver === "pglite" ? PGLITE_BATCH_DELAY_MS : SERVER_BATCH_DELAY_MS;
    await new Promise((resolve) => setTimeout(resolve, delay / 2));
    const early = await countOf("/t/timer");
    // Nothing is written before the delay: provable when this count ended before it (5 ms spare for
    // timer rounding). On a busy machine the sleep and the count can outlast the delay (50 ms on
    // PostgreSQL), and the row may then be written already.
    if (Date.now() - queued < delay - 5) expect(early).toBe(0);
    // Guards against a hang only: the write follows the delay within milliseconds.
    const deadline = Date.now() + delay + 20_000;
    while ((await countOf("/t/timer")) < 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await countOf("/t/timer")).toBe(1);
  });
});
