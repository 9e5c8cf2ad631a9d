/**
 * The dependency rules (.dependency-cruiser.cjs) and their check (`npm run deps`,
 * scripts/check-deps.ts) against a small tree laid out like the service: a clean tree passes,
 * each kind of forbidden import fails naming its rule, and the baseline hides only the
 * violations it lists (folder cycles included, which dependency-cruiser alone does not soften).
 * Also the measures of `npm run arch` (scripts/arch-report.ts) on small graphs.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cycles, mutualFolderPairs } from "../../scripts/arch-report.js";
import { depcruiseBin } from "../../scripts/dependency-graph.js";

const ROOT = join(import.meta.dirname, "..", "..");
const TSX = join(ROOT, "node_modules", ".bin", "tsx");

/**
 * Each check spawns tsx and dependency-cruiser, which parses the fixture with TypeScript: about
 * 3 s on a quiet machine, but over 30 s for one test (three runs) on a 2-core machine busy with
 * other work. A subprocess gets 4 minutes before it is killed; a test, 10 (issue 40).
 */
const SUBPROCESS_MS = 240_000;
const TEST_MS = 600_000;

/**
 * A tree with modules in every layer, each importing only downwards; the state layer is the
 * folder lib/tasks/state/.
 */
const CLEAN_TREE: Record<string, string> = {
  "lib/config.ts": "export const config = {};\n",
  "lib/ids.ts": "export const id = () => 'x';\n",
  "lib/db/client.ts": 'import { config } from "../config.js";\nexport const db = config;\n',
  "lib/geo/zone.ts": "export const zone = 1;\n",
  // The state layer's folder (lib/tasks/state/): services may import it without a folder cycle.
  "lib/tasks/state/transitions.ts": 'import { db } from "../../db/client.js";\nexport const table = db;\n',
  "lib/tasks/state/deadlines.ts": 'import { zone } from "../../geo/zone.js";\nexport const h = zone;\n',
  "lib/billing/charge-task.ts":
    'import { table } from "../tasks/state/transitions.js";\nexport const charge = table;\n',
  "lib/http/operation.ts": "export const op = 1;\n",
  "lib/billing/operations.ts": 'import { op } from "../http/operation.js";\nexport const ops = op;\n',
  "lib/tasks/submit-task.ts":
    'import { charge } from "../billing/charge-task.js";\nimport { h } from "./state/deadlines.js";\nexport const submit = [charge, h];\n',
  "lib/http/handler.ts": 'import { db } from "../db/client.js";\nexport const wrap = db;\n',
  "api/submit-task.ts":
    'import { wrap } from "../lib/http/handler.js";\nimport { submit } from "../lib/tasks/submit-task.js";\nexport default [wrap, submit];\n',
  "public/shared/dom.js": "export const $ = 1;\n",
  "public/client/app.js": 'import { $ } from "../shared/dom.js";\nexport const app = $;\n',
};

/** Forbidden imports, each added to the clean tree: [file, line appended, expected report line]. */
const BAD_IMPORTS: [string, string, string][] = [
  [
    "lib/db/client.ts",
    'import "../tasks/state/deadlines.js";',
    "db-imports-no-domain: lib/db/client.ts → lib/tasks/state/deadlines.ts",
  ],
  [
    "lib/geo/zone.ts",
    'import "../billing/charge-task.js";',
    "base-imports-only-base: lib/geo/zone.ts → lib/billing/charge-task.ts",
  ],
  [
    "lib/tasks/state/deadlines.ts",
    'import "../../billing/charge-task.js";',
    "state-imports-only-state-and-base: lib/tasks/state/deadlines.ts → lib/billing/charge-task.ts",
  ],
  [
    "lib/billing/charge-task.ts",
    'import "../billing/operations.js";',
    "services-import-no-workflow-or-adapter: lib/billing/charge-task.ts → lib/billing/operations.ts",
  ],
  [
    "lib/tasks/submit-task.ts",
    'import "../http/handler.js";',
    "workflows-import-no-adapter: lib/tasks/submit-task.ts → lib/http/handler.ts",
  ],
  [
    "lib/http/handler.ts",
    'import "../../api/submit-task.js";',
    "lib-imports-no-entry-point: lib/http/handler.ts → api/submit-task.ts",
  ],
  [
    "public/shared/dom.js",
    'import "../../lib/ids.js";',
    "public-is-separate: public/shared/dom.js → lib/ids.ts",
  ],
  [
    "lib/ids.ts",
    'import "./brand-new/thing.js";',
    "lib-module-has-a-layer: lib/ids.ts → lib/brand-new/thing.ts",
  ],
];

let dir: string;

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** Runs `npm run deps`'s script in the fixture tree: its exit status and all it printed. */
function checkDeps(): { status: number | null; output: string } {
  const run = spawnSync(TSX, [join(ROOT, "scripts", "check-deps.ts")], {
    cwd: dir,
    encoding: "utf8",
    timeout: SUBPROCESS_MS,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Writes the fixture's baseline of known violations, as `npm run deps:baseline` does. */
function writeBaseline(): void {
  execFileSync(
    depcruiseBin(),
    ["--config", ".dependency-cruiser.cjs", "--output-type", "baseline", "--output-to"].concat([
      ".dependency-cruiser-known-violations.json",
      "api",
      "lib",
      "public",
    ]),
    { cwd: dir, encoding: "utf8", timeout: SUBPROCESS_MS },
  );
}

describe("dependency rules (npm run deps)", { timeout: TEST_MS }, () => {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "dep-rules-"));
    copyFileSync(join(ROOT, ".dependency-cruiser.cjs"), join(dir, ".dependency-cruiser.cjs"));
    copyFileSync(join(ROOT, "tsconfig.json"), join(dir, "tsconfig.json"));
    write(CLEAN_TREE);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("passes a tree whose imports all point down the layers", () => {
    const { status, output } = checkDeps();
    expect(output).toContain("no new dependency violations");
    expect(status).toBe(0);
  });

  it("fails on each kind of forbidden import, naming the rule and the import", () => {
    write({ "lib/brand-new/thing.ts": "export const t = 1;\n" });
    for (const [file, line] of BAD_IMPORTS) appendFileSync(join(dir, file), `${line}\n`);
    const { status, output } = checkDeps();
    expect(status).toBe(1);
    for (const [, , expected] of BAD_IMPORTS) expect(output).toContain(expected);
  });

  it("fails on a cycle between files and on a cycle between lib folders", () => {
    appendFileSync(join(dir, "lib/db/client.ts"), 'import "./schema.js";\n');
    write({ "lib/db/schema.ts": 'import "./client.js";\nexport const s = 1;\n' });
    // Folder cycle without a file cycle: lib/billing/a → lib/payments/b, lib/payments/c → lib/billing/d.
    write({
      "lib/billing/a.ts": 'import "../payments/b.js";\n',
      "lib/payments/b.ts": "export const b = 1;\n",
      "lib/payments/c.ts": 'import "../billing/d.js";\n',
      "lib/billing/d.ts": "export const d = 1;\n",
    });
    const { status, output } = checkDeps();
    expect(status).toBe(1);
    expect(output).toMatch(/no-circular: lib\/db\/(client|schema)\.ts → lib\/db\/(schema|client)\.ts/);
    expect(output).toMatch(/no-circular-lib-folders: lib\/(billing|payments) → lib\/(payments|billing)/);
  });

  it("lets the baseline's violations pass, folder cycles included, and still fails a new one", () => {
    write({
      "lib/billing/a.ts": 'import "../payments/b.js";\n',
      "lib/payments/b.ts": "export const b = 1;\n",
      "lib/payments/c.ts": 'import "../billing/d.js";\n',
      "lib/billing/d.ts": "export const d = 1;\n",
    });
    appendFileSync(join(dir, "lib/tasks/submit-task.ts"), 'import "../http/handler.js";\n');
    writeBaseline();
    expect(checkDeps().status).toBe(0);

    appendFileSync(join(dir, "lib/tasks/state/deadlines.ts"), 'import "../../http/operation.js";\n');
    const { status, output } = checkDeps();
    expect(status).toBe(1);
    expect(output).toContain("✖ 1 new dependency violation(s)");
    expect(output).toContain(
      "state-imports-only-state-and-base: lib/tasks/state/deadlines.ts → lib/http/operation.ts",
    );
  });
});

describe("architecture measures (npm run arch)", () => {
  const graph = (edges: Record<string, string[]>) =>
    new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));

  it("counts lib folders importing each other directly, once per pair", () => {
    const pairs = mutualFolderPairs(
      graph({
        "lib/a/x.ts": ["lib/b/y.ts", "lib/c/z.ts"],
        "lib/b/y.ts": ["lib/a/w.ts"],
        "lib/b/v.ts": ["lib/a/x.ts"],
        "lib/c/z.ts": ["lib/c/q.ts"],
        "api/e.ts": ["lib/a/x.ts"],
        // The task state layer is a folder of its own: lib/tasks ⇄ lib/b is not a pair here.
        "lib/tasks/w.ts": ["lib/b/v.ts"],
        "lib/b/u.ts": ["lib/tasks/state/t.ts"],
      }),
    );
    expect(pairs).toEqual(["lib/a ⇄ lib/b"]);
  });

  it("finds the files of every import cycle and nothing else", () => {
    const found = cycles(
      graph({
        "lib/a.ts": ["lib/b.ts"],
        "lib/b.ts": ["lib/c.ts"],
        "lib/c.ts": ["lib/a.ts", "lib/d.ts"],
        "lib/d.ts": [],
        "lib/self.ts": ["lib/self.ts"],
        "lib/e.ts": ["lib/a.ts"],
      }),
    );
    expect(found).toEqual([["lib/a.ts", "lib/b.ts", "lib/c.ts"], ["lib/self.ts"]]);
  });
});
