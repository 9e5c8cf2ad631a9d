/**
 * `npm run admin:create-key -- --name N --contact E [--scopes a,b]`: creates a key on
 * the server's host (default scopes: admin plus the defaults) and prints it once.
 * Uses the configured database (DATABASE_URL, or the embedded one under DATA_DIR —
 * stop `npm start` first, as only one process may open it).
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { closeDatabase } from "../lib/db/client.js";
import { SCOPES } from "../lib/db/schema/enums.js";
import { createApiKey } from "../lib/keys/create-api-key.js";

const argsSchema = z.object({
  name: z.string().trim().min(1).max(100),
  contact: z.email().max(254),
  scopes: z.array(z.enum(SCOPES)).min(1),
});

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { name: { type: "string" }, contact: { type: "string" }, scopes: { type: "string" } },
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
  const key = await createApiKey({ ...parsed.data, trusted: true, ip: "host" });
  console.log(JSON.stringify(key, null, 2));
  console.error("Store api_key now: it is shown only once.");
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(() => closeDatabase());
