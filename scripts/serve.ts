/**
 * `npm start`: the local host on the configured database (embedded PGlite by default).
 * Listens on PORT (default 3000), prints its URL and process id, stops cleanly on SIGINT/SIGTERM
 * (the printed pid is this very process: `npm start` runs `node` directly, no wrapper).
 *
 * Reads `.env` first (or the file named by ENV_FILE) with Node's own loader: variables already
 * set in the environment win. In the production profile (NODE_ENV=production, VERCEL set, or a
 * DATABASE_URL that is not loopback: `productionProfile` in lib/config.ts) it exits with status
 * 1 and a message naming every missing variable rather than serve with development defaults. In
 * a development run it prints which relaxed settings are on, and warns when no payment network
 * is configured. It opens the local control channel (scripts/local-control.ts) through which
 * `npm run admin:create-key` works while it runs. `npm run dev` (scripts/dev.ts) calls `serve`.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { flushActivity } from "../lib/activity/record-activity.js";
import { getConfig, productionProblems, relaxedSettings, resetConfig } from "../lib/config.js";
import { closeDatabase, getDatabase } from "../lib/db/client.js";
import { networkConfigs } from "../lib/payments/networks.js";
import { describeDatabase, startLocalControl } from "./local-control.js";
import { startLocalHost } from "./local-host.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Loads `ENV_FILE` (default `.env` in the working directory) into `process.env` when it exists;
 * variables already set are kept. Returns the file loaded, or undefined.
 */
export function loadEnvFile(): string | undefined {
  const file = path.resolve(process.env.ENV_FILE || ".env");
  if (!existsSync(file)) {
    if (process.env.ENV_FILE) throw new Error(`ENV_FILE: ${file} does not exist`);
    return undefined;
  }
  process.loadEnvFile(file);
  return file;
}

/** Options of `serve`. */
export interface ServeOptions {
  /** The development profile (`npm run dev`): mounts the mail viewer at /dev/mail. */
  dev?: boolean;
  /** Run once the database is open, before listening (npm run dev resets its chain cursors). */
  prepare?: () => Promise<void>;
  /** Lines printed after the listening line, given the host's URL (npm run dev's banner). */
  banner?: (url: string) => Promise<string[]>;
  /** Run at shutdown once the host has closed (npm run dev stops its chains). */
  onStop?: () => Promise<void>;
}

/** Serves until SIGINT/SIGTERM; throws when the configuration refuses to serve. */
export async function serve(options: ServeOptions = {}): Promise<void> {
  const config = getConfig();
  const problem = productionProblems(config);
  if (problem) throw new Error(problem);
  // npm run dev's banner lists the relaxed settings and the payment networks itself.
  const relaxed = options.banner ? [] : relaxedSettings(config);
  if (relaxed.length) {
    console.log(
      `Development run (loopback/embedded database): relaxed settings on:\n${relaxed.map((l) => `  - ${l}`).join("\n")}`,
    );
  }
  if (!options.banner && networkConfigs(config).length === 0) {
    console.log(
      "WARNING: no payment network configured (ETHEREUM_RPC_URL + ETHEREUM_WALLET, BASE_RPC_URL + BASE_WALLET): " +
        "USDC payment instructions list no network and cannot be followed. `npm run dev` starts local chains.",
    );
  }
  const database = await getDatabase();
  await options.prepare?.();
  const control = startLocalControl({ dev: options.dev ?? false });
  const host = await startLocalHost({
    root,
    port: config.PORT,
    host: config.HOST,
    intercept: control.intercept,
  });
  control.attach(host);
  if (!config.PUBLIC_BASE_URL && config.PORT === 0) {
    // Links in e-mails and responses name the port actually chosen, not `localhost:0`.
    process.env.PUBLIC_BASE_URL = host.url;
    resetConfig();
  }
  console.log(
    `Physical Task Execution Service listening on ${host.url} (database: ${database.driver}, ${describeDatabase(config)}; pid ${process.pid})`,
  );
  for (const line of (await options.banner?.(host.url)) ?? []) console.log(line);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down`);
    control.close();
    await host.close();
    await options.onStop?.();
    await flushActivity();
    await closeDatabase();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  Promise.resolve()
    .then(() => {
      loadEnvFile();
      return serve();
    })
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
