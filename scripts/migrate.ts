/**
 * `npm run db:migrate`: applies drizzle-kit's migrations (drizzle/) to the configured
 * database: DATABASE_URL (node-postgres, or the Neon driver for Neon hosts), or the
 * embedded PGlite under DATA_DIR when unset.
 */
import { getConfig } from "../lib/config.js";
import { MIGRATIONS_FOLDER, openDatabase, selectDriver } from "../lib/db/client.js";

async function main(): Promise<void> {
  const config = getConfig();
  const driver = selectDriver(config);
  // PGlite migrates as it opens. No query bound: a migration's statement may run long.
  const handle = await openDatabase(config, { queryTimeoutMs: 0 });
  if (driver === "pg") {
    const { migrate } = await import("drizzle-orm/node-postgres/migrator");
    await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  } else if (driver === "neon") {
    const { migrate } = await import("drizzle-orm/neon-serverless/migrator");
    await migrate(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
  }
  await handle.close();
  console.log(`Migrations applied (${driver}).`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
