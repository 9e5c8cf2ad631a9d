/**
 * `npm start`: the local host on the configured database (embedded PGlite by default).
 * Listens on PORT (default 3000), prints its URL, stops cleanly on SIGINT/SIGTERM.
 *
 * In the production profile (NODE_ENV=production, VERCEL set, or a DATABASE_URL that is not
 * loopback: `productionProfile` in lib/config.ts) it exits with status 1 and a message naming
 * every missing variable rather than serve with development defaults. In a development run it
 * prints which relaxed settings are on.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { flushActivity } from "../lib/activity/record-activity.js";
import { getConfig, productionProblems, relaxedSettings } from "../lib/config.js";
import { closeDatabase, getDatabase } from "../lib/db/client.js";
import { startLocalHost } from "./local-host.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

async function main(): Promise<void> {
  const config = getConfig();
  const problem = productionProblems(config);
  if (problem) throw new Error(problem);
  const relaxed = relaxedSettings(config);
  if (relaxed.length) {
    console.log(
      `Development run (loopback/embedded database): relaxed settings on:\n${relaxed.map((l) => `  - ${l}`).join("\n")}`,
    );
  }
  const database = await getDatabase();
  const host = await startLocalHost({ root, port: config.PORT, host: config.HOST });
  console.log(`Physical Task Execution Service listening on ${host.url} (database: ${database.driver})`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down`);
    await host.close();
    await flushActivity();
    await closeDatabase();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
