/**
 * `npm run admin:create-key -- --name N --contact E [--scopes a,b] [--init]`: creates a key on
 * the server's host (default scopes: admin plus the defaults) and prints it once, with the
 * database it was written to.
 *
 * While `npm start` / `npm run dev` runs on the same DATA_DIR, the key is created through that
 * process's loopback control channel (scripts/local-control.ts), so the server need not stop.
 * Otherwise it opens the configured database itself (DATABASE_URL, or the embedded one under
 * DATA_DIR, reading `.env` like the server). It never creates an embedded database silently:
 * when DATA_DIR holds none it stops with a message, unless `--init` is given.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { getConfig } from "../lib/config.js";
import { closeDatabase, selectDriver } from "../lib/db/client.js";
import { SCOPES } from "../lib/db/schema/enums.js";
import { createApiKey } from "../lib/keys/create-api-key.js";
import { describeDatabase, readControlFile } from "./local-control.js";
import { loadEnvFile } from "./serve.js";

const argsSchema = z.object({
  name: z.string().trim().min(1).max(100),
  contact: z.email().max(254),
  scopes: z.array(z.enum(SCOPES)).min(1),
});

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      name: { type: "string" },
      contact: { type: "string" },
      scopes: { type: "string" },
      init: { type: "boolean" },
    },
  });
  const parsed = argsSchema.safeParse({
    name: values.name,
    contact: values.contact,
    scopes: (values.scopes ?? "admin,audit_only,task_create,task_cancel,billing_read")
      .split(",")
      .map((s) => s.trim()),
  });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join("; ");
    throw new Error(`Usage: npm run admin:create-key -- --name N --contact E [--scopes a,b]. ${problems}`);
  }
  loadEnvFile();
  const config = getConfig();
  const running = readControlFile(config);
  if (running) {
    const res = await fetch(`${running.url}/_local/admin-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${running.token}`, "content-type": "application/json" },
      body: JSON.stringify(parsed.data),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 201) throw new Error(`The running server refused: ${JSON.stringify(body)}`);
    const { database, ...key } = body;
    console.log(JSON.stringify(key, null, 2));
    console.error(`Created through the running server (pid ${running.pid}) in ${String(database)}.`);
    console.error("Store api_key now: it is shown only once.");
    return;
  }
  const database = describeDatabase(config);
  if (selectDriver(config) === "pglite") {
    if (config.DATA_DIR === "memory://") {
      throw new Error(
        "DATA_DIR=memory://: a key created here would vanish with this command; use the server's DATA_DIR",
      );
    }
    const dir = path.resolve(config.DATA_DIR, "pglite");
    if (!existsSync(dir) && !values.init) {
      throw new Error(
        `No database in ${dir}: refusing to create one. Point DATA_DIR (or DATABASE_URL) at the server's ` +
          "database, start the server once, or pass --init to create it here.",
      );
    }
  }
  const key = await createApiKey({ ...parsed.data, trusted: true, ip: "host" });
  console.log(JSON.stringify(key, null, 2));
  console.error(`Created in ${database}.`);
  console.error("Store api_key now: it is shown only once.");
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(() => closeDatabase());
