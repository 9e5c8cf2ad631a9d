/**
 * One storage contract, run against every backend available here: embedded PGlite
 * always; the real PostgreSQL (node-postgres) and the Neon serverless driver (over
 * websockify) when TEST_DATABASE_URL and TEST_NEON_WS_PROXY are set, as in CI.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../lib/config.js";
import { type DatabaseHandle, selectDriver, setDatabase } from "../../lib/db/client.js";
import { jobRuns, proofFiles, taskEvents, tasks } from "../../lib/db/schema/index.js";
import { runJob } from "../../lib/jobs/run-job.js";
import { availableBackends, createTestDatabase } from "../helpers/db.js";

function newTask(id: string, extra: Partial<typeof tasks.$inferInsert> = {}): typeof tasks.$inferInsert {
  return {
    id,
    serviceType: "SVC-05",
    locationAddress: "10 rue Saint-Louis, Terrebonne",
    taskDescription: "Deliver an envelope",
    requesterContact: "agent@example.com",
    reviewDeadline: new Date(),
    executionDeadline: new Date(),
    ...extra,
  };
}

describe("selectDriver", () => {
  it.each([
    [{}, "pglite"],
    [{ DATABASE_URL: "postgres://u@db.example.com/x" }, "pg"],
    [{ DATABASE_URL: "postgres://u@ep-cool-1.us-east-2.aws.neon.tech/x" }, "neon"],
    [{ DATABASE_URL: "postgres://u@127.0.0.1/x", DATABASE_DRIVER: "neon" }, "neon"],
    [{ DATABASE_URL: "postgres://u@127.0.0.1/x", DATABASE_DRIVER: "pglite" }, "pglite"],
  ])("%j → %s", (env, driver) => {
    expect(selectDriver(parseConfig(env as Record<string, string>))).toBe(driver);
  });
});

describe.each(availableBackends())("storage contract on %s", (backend) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    setDatabase(handle);
  });
  afterAll(async () => {
    setDatabase(undefined);
    await handle.close();
  });

  it("commits a state change and its event together", async () => {
    const { db } = handle;
    await db.transaction(async (tx) => {
      await tx.insert(tasks).values(newTask(`TASK-${backend}-1`));
      await tx.insert(taskEvents).values({
        id: `evt_${backend}_1`,
        taskId: `TASK-${backend}-1`,
        type: "task.created",
        taskStatus: "received",
        payload: { status: "received" },
      });
    });
    const events = await db
      .select()
      .from(taskEvents)
      .where(eq(taskEvents.taskId, `TASK-${backend}-1`));
    expect(events).toHaveLength(1);
    expect(events[0]!.seq).toBeGreaterThan(0);
  });

  it("rolls back both when the event cannot be written", async () => {
    const { db } = handle;
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(tasks).values(newTask(`TASK-${backend}-2`));
        await tx.insert(taskEvents).values({
          id: `evt_${backend}_1`, // duplicate id: the insert fails
          taskId: `TASK-${backend}-2`,
          type: "task.created",
          payload: {},
        });
      }),
    ).rejects.toThrow();
    expect(
      await db
        .select()
        .from(tasks)
        .where(eq(tasks.id, `TASK-${backend}-2`)),
    ).toHaveLength(0);
  });

  it("keeps open USDC amounts unique", async () => {
    const { db } = handle;
    await db
      .insert(tasks)
      .values(
        newTask(`TASK-${backend}-3`, { status: "accepted_pending_payment", paymentUsdcMicro: 123_450_001n }),
      );
    await expect(
      db
        .insert(tasks)
        .values(newTask(`TASK-${backend}-4`, { status: "counter_offered", paymentUsdcMicro: 123_450_001n })),
    ).rejects.toThrow();
    await db
      .insert(tasks)
      .values(newTask(`TASK-${backend}-5`, { status: "paid", paymentUsdcMicro: 123_450_001n }));
  });

  it("round-trips bytea, bigint and numeric", async () => {
    const { db } = handle;
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    await db.insert(proofFiles).values({
      id: `pf_${backend}`,
      taskId: `TASK-${backend}-1`,
      filename: "a.bin",
      mimeType: "application/octet-stream",
      sizeBytes: bytes.length,
      sha256: "x",
      content: bytes,
    });
    const [file] = await db
      .select()
      .from(proofFiles)
      .where(eq(proofFiles.id, `pf_${backend}`));
    expect(Buffer.from(file!.content)).toEqual(bytes);
    await db
      .update(tasks)
      .set({ estimateCad: 329.67 })
      .where(eq(tasks.id, `TASK-${backend}-1`));
    const [t] = await db
      .select()
      .from(tasks)
      .where(eq(tasks.id, `TASK-${backend}-3`));
    expect(t!.paymentUsdcMicro).toBe(123_450_001n);
    const [t1] = await db
      .select({ e: tasks.estimateCad })
      .from(tasks)
      .where(eq(tasks.id, `TASK-${backend}-1`));
    expect(t1!.e).toBe(329.67);
  });

  it("runs a job once under its lease and records the outcome", async () => {
    const { db } = handle;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let entered: () => void = () => {};
    const holding = new Promise<void>((r) => {
      entered = r;
    });
    const first = runJob("contract-job", async () => {
      entered();
      await gate;
      return { n: 1 };
    });
    // The first run holds the lease once its work has started (by order, not after a sleep).
    await holding;
    const second = await runJob("contract-job", async () => ({ n: 2 }));
    expect(second.skipped).toBe(true);
    release();
    expect((await first).ok).toBe(true);
    const failed = await runJob("contract-job", async () => {
      throw new Error("boom");
    });
    expect(failed).toMatchObject({ ok: false, error: "boom" });
    const [row] = await db.select().from(jobRuns).where(eq(jobRuns.job, "contract-job"));
    expect(row).toMatchObject({
      lastStatus: "error",
      lastError: "boom",
      details: { n: 1 },
      lockedUntil: null,
    });
    expect(row!.lastSuccessAt).not.toBeNull();
  });

  it.skipIf(backend === "pglite")(
    "survives the server ending a connection in the middle of a transaction, and keeps serving",
    async () => {
      const { db } = handle;
      const rows = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;
      await expect(
        db.transaction(async (tx) => {
          const [own] = rows(await tx.execute(sql`select pg_backend_pid() as pid`));
          // Another pooled connection ends this one (as a server restart or an idle timeout would)
          // while the transaction is between statements: no query is waiting for the error.
          await db.execute(sql`select pg_terminate_backend(${Number(own!.pid)})`);
          await new Promise((resolve) => setTimeout(resolve, 300));
          await tx.execute(sql`select 1`);
        }),
      ).rejects.toThrow();
      const [after] = rows(await db.execute(sql`select 41 + 1 as answer`));
      expect(Number(after!.answer)).toBe(42);
    },
  );

  it("answers a round trip", async () => {
    const result = await handle.db.execute(sql`select 1 as one`);
    expect(JSON.stringify(result)).toContain("1");
  });
});

describe("the embedded database's settings", () => {
  it("extends tables by writing zeros (PGlite emulates posix_fallocate by copying the whole file) and keeps PGlite's own settings", async () => {
    const { openPglite } = await import("../../lib/db/client.js");
    const handle = await openPglite("memory://");
    try {
      const show = async (name: string) =>
        Object.values(((await handle.db.execute(sql.raw(`show ${name}`))) as { rows: object[] }).rows[0]!)[0];
      expect(await show("file_extend_method")).toBe("write_zeros");
      // The start parameters are PGlite's defaults plus this one, and postgresql.conf is untouched.
      expect(await show("TimeZone")).toBe("UTC");
      expect(await show("default_text_search_config")).toBe("pg_catalog.english");
      expect(await show("max_parallel_workers_per_gather")).toBe("0");
      // A bulk extension (far more than eight pages in one COPY-sized statement) still works.
      await handle.db.execute(
        sql`create table extend_check as select g, repeat('x', 200) as pad from generate_series(1, 20000) g`,
      );
      const [row] = (
        (await handle.db.execute(sql`select count(*)::int as n from extend_check`)) as {
          rows: { n: number }[];
        }
      ).rows;
      expect(row!.n).toBe(20000);
    } finally {
      await handle.close();
    }
    // A guard only: opening PGlite and writing 20,000 rows took over 30 s on a loaded 2-core machine.
  }, 180_000);
});
