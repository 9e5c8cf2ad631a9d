/**
 * Column helpers shared by every table, so that units are spelled the same way everywhere:
 *
 * - CAD amounts are `numeric(12,2)`, read and written as JS numbers (exact to the cent; a
 *   numeric(12,2) has 12 significant digits, well inside a double's 15).
 * - Exchange rates (quote units per base unit, e.g. USD per CAD) are `numeric(18,8)`, read and written
 *   as JS numbers.
 * - USDC amounts are `bigint` micro-units (1 USDC = 1_000_000), read and written as `bigint`.
 * - Times are `timestamptz`, read and written as `Date`.
 * - Binary content is `bytea`, read as a Node `Buffer` (a `Uint8Array`).
 */
import { bigint, customType, integer, numeric, text, timestamp } from "drizzle-orm/pg-core";

/** `bytea` mapped to `Uint8Array` (Node returns a `Buffer`, which is one). */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array | string }>({
  dataType() {
    return "bytea";
  },
  toDriver(value) {
    return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  },
  fromDriver(value) {
    if (typeof value === "string") {
      // Text form (`\x` hex), as some drivers return it.
      return Buffer.from(value.startsWith("\\x") ? value.slice(2) : value, "hex");
    }
    return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  },
});

/** A CAD amount: `numeric(12,2)`, as a JS number. */
export const cad = (name: string) => numeric(name, { precision: 12, scale: 2, mode: "number" });

/** An exchange rate, quote units per base unit (USD per CAD, 8 decimals): `numeric(18,8)`, as a JS number. */
export const exchangeRate = (name: string) => numeric(name, { precision: 18, scale: 8, mode: "number" });

/** A USDC amount in micro-units (6 decimals): `bigint`, as a JS bigint. */
export const usdcMicro = (name: string) => bigint(name, { mode: "bigint" });

/** A point in time: `timestamp with time zone`, as a `Date`. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** `created_at timestamptz not null default now()`. */
export const createdAt = () => timestamptz("created_at").notNull().defaultNow();

/** `updated_at timestamptz not null default now()`; writers set it on every update. */
export const updatedAt = () =>
  timestamptz("updated_at")
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date());

/**
 * The columns of an uploaded file stored in the database (a task's proof file, a dispute's
 * evidence file, both decoded and checked by lib/tasks/state/proof-files.ts): name, MIME type,
 * size, SHA-256, bytes, and place in its upload. A function: each table needs its own column objects.
 */
export const storedFileColumns = () => ({
  filename: text("filename").notNull(),
  mimeType: text("mime_type").notNull(),
  /** Length of `content`, bytes. */
  sizeBytes: integer("size_bytes").notNull(),
  /** Lowercase hex SHA-256 of `content`. */
  sha256: text("sha256").notNull(),
  content: bytea("content").notNull(),
  /** Place of the file in its upload (0-based). */
  position: integer("position").notNull().default(0),
});
