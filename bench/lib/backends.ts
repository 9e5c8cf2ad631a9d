/**
 * Runs one measurement on each database backend a benchmark compares: the embedded PGlite
 * (in memory), then a scratch PostgreSQL database on `BENCH_PG_URL`'s server (default
 * 127.0.0.1:5432; `skip` leaves it out), created, migrated and dropped by the run. The
 * benchmark's environment is set for the whole run and restored afterwards (other benchmarks run
 * in the same process).
 */
import { createScratchDatabase } from "../../lib/db/scratch-database.js";
import type { BenchContext } from "./types.js";

/** Default server for the scratch database (`BENCH_PG_URL`; `skip` leaves PostgreSQL out). */
export const DEFAULT_PG_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * `measure` on PGlite (database URL undefined), then on a scratch PostgreSQL database.
 * @param name the benchmark's name, for the log lines
 * @param env variables set during the run, restored after it
 * @returns the results in that order, and why PostgreSQL was not measured (if it was not)
 */
export async function onEachBackend<R>(
  ctx: BenchContext,
  name: string,
  env: Record<string, string>,
  measure: (label: string, databaseUrl: string | undefined) => Promise<R>,
): Promise<{ results: R[]; pgSkipped: string | undefined }> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const results: R[] = [];
  let pgSkipped: string | undefined;
  try {
    results.push(await measure("PGlite (in-memory)", undefined));
    const pgAdmin = process.env.BENCH_PG_URL?.trim() || DEFAULT_PG_URL;
    if (pgAdmin === "skip") pgSkipped = "BENCH_PG_URL=skip";
    else {
      let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
      try {
        scratch = await createScratchDatabase(pgAdmin, "ptes_bench");
        ctx.log(`${name}: scratch database ${scratch.name} created and migrated`);
      } catch (error) {
        pgSkipped = `no PostgreSQL at ${new URL(pgAdmin).host} (${error instanceof Error ? error.message : String(error)})`;
        ctx.log(`${name}: PostgreSQL skipped: ${pgSkipped}`);
      }
      if (scratch) {
        try {
          results.push(await measure("PostgreSQL", scratch.url));
        } finally {
          await scratch.drop();
          ctx.log(`${name}: scratch database ${scratch.name} dropped`);
        }
      }
    }
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    const { resetConfig } = await import("../../lib/config.js");
    resetConfig();
  }
  return { results, pgSkipped };
}
