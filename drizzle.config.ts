/**
 * drizzle-kit configuration. `npm run db:generate` writes a migration to `drizzle/` from
 * the schema; it needs no database. `DATABASE_URL` is only read by commands that connect
 * (`drizzle-kit migrate`, `push`, `studio`); the service applies migrations itself
 * (`npm run db:migrate`).
 */
import { defineConfig } from "drizzle-kit";

const url = process.env.DATABASE_URL?.trim();

export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/db/schema/index.ts",
  out: "./drizzle",
  ...(url ? { dbCredentials: { url } } : {}),
  strict: true,
  verbose: true,
});
