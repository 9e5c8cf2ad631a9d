/**
 * Migrations run in two steps, for the tests of a migration that changes data already there: a
 * copy of the migrations folder that stops before a given migration (migrate to it, write rows,
 * then migrate with the real folder). The copies are removed after the test file.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect } from "vitest";
import { MIGRATIONS_FOLDER } from "../../lib/db/client.js";

interface Journal {
  entries: { tag: string }[];
}

/**
 * Registers the clean-up of the copies (call it at the top of a test file) and returns
 * `migrationsBefore(tag)`: a copy of the migrations folder whose journal stops before the
 * migration whose tag ends with `tag` (which must exist and not be the first).
 */
export function useMigrationsBefore(): (tag: string) => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return (tag: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), "ptes-migrations-"));
    dirs.push(dir);
    cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
    const file = path.join(dir, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(file, "utf8")) as Journal;
    const stop = journal.entries.findIndex((e) => e.tag.endsWith(tag));
    expect(stop).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, stop);
    writeFileSync(file, JSON.stringify(journal));
    return dir;
  };
}
