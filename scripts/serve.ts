/**
 * `npm start`: the local host on the configured database (embedded PGlite by default).
 * Listens on PORT (default 3000), prints its URL, stops cleanly on SIGINT/SIGTERM.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { flushActivity } from "../lib/activity/record-activity.js";
import { getConfig } from "../lib/config.js";
import { closeDatabase, getDatabase } from "../lib/db/client.js";
import { startLocalHost } from "./local-host.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

async function main(): Promise<void> {
  const config = getConfig();
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
