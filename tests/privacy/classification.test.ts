/**
 * The personal-data classification must cover the schema exactly: a table or column added to
 * lib/db/schema without being classified in lib/privacy/classification.ts fails here, as does a
 * classification left behind by a dropped column. Every table with a personal column must be
 * exported or say why not.
 */
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../lib/db/schema/index.js";
import { DATA_CLASSIFICATION } from "../../lib/privacy/classification.js";

const tables = Object.values(schema as Record<string, unknown>)
  .filter((v): v is PgTable => v instanceof PgTable)
  .map((t) => getTableConfig(t));

describe("personal-data classification", () => {
  it("finds the schema's tables", () => {
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.map((t) => t.name)).toContain("client_accounts");
  });

  it.each(tables.map((t) => [t.name, t] as const))("classifies every column of %s", (name, table) => {
    const entry = DATA_CLASSIFICATION[name];
    expect(entry, `table ${name} is not in DATA_CLASSIFICATION`).toBeDefined();
    const columns = table.columns.map((c) => c.name).sort();
    expect(Object.keys(entry!.columns).sort(), `columns of ${name}`).toEqual(columns);
  });

  it("has no entry for a table that is gone", () => {
    const names = new Set(tables.map((t) => t.name));
    expect(Object.keys(DATA_CLASSIFICATION).filter((n) => !names.has(n))).toEqual([]);
  });

  it("exports every table holding personal data, or gives the reason it does not", () => {
    for (const [name, entry] of Object.entries(DATA_CLASSIFICATION)) {
      const personal = Object.values(entry.columns).includes("personal");
      if (typeof entry.export === "object") expect(entry.export.excluded.length, name).toBeGreaterThan(10);
      else expect(entry.export, name).toMatch(/^[a-z_]+$/);
      expect(entry.purpose.length, name).toBeGreaterThan(5);
      if (personal) expect(entry.erasure.length, name).toBeGreaterThan(3);
    }
  });

  it("classifies the obvious personal fields as personal and credentials as secret", () => {
    const c = DATA_CLASSIFICATION;
    expect(c.client_accounts!.columns.email).toBe("personal");
    expect(c.client_accounts!.columns.phone).toBe("personal");
    expect(c.client_accounts!.columns.password_hash).toBe("secret");
    expect(c.tasks!.columns.location_address).toBe("personal");
    expect(c.activity_log!.columns.ip).toBe("personal");
    expect(c.api_keys!.columns.key_hash).toBe("secret");
    expect(c.webhooks!.columns.secret_ciphertext).toBe("secret");
  });
});
