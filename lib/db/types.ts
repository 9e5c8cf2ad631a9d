/**
 * The database types shared by the client factory (lib/db/client.ts) and the ambient
 * transaction (lib/db/ambient.ts), in a file of their own so neither imports the other for
 * them. Types only: the schema is imported for its type.
 */
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import type * as schema from "./schema/index.js";

/** The drizzle schema: every table and relation of lib/db/schema. */
export type Schema = typeof schema;
/** The drizzle database type shared by every driver. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction handle, usable wherever `Db` is. */
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
