/**
 * Runs dependency-cruiser once over the service's code and returns its JSON result, for
 * `npm run deps` (scripts/check-deps.ts) and `npm run arch` (scripts/arch-report.ts).
 *
 * The rules and the layers live in .dependency-cruiser.cjs; the known violations (the
 * baseline) in .dependency-cruiser-known-violations.json, both read from `cwd`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folders cruised: endpoints, domain, scripts and the static pages. */
export const CRUISED = ["api", "lib", "public", "scripts"];

/** The rules file and the baseline, relative to the folder cruised from. */
export const RULES_FILE = ".dependency-cruiser.cjs";
export const BASELINE_FILE = ".dependency-cruiser-known-violations.json";

/** One broken rule as dependency-cruiser reports it (`from`/`to`: file or folder paths). */
export interface Violation {
  type: string;
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: { name: string }[];
}

/** One cruised module: its path and the paths it imports (`resolved`). */
export interface CruisedModule {
  source: string;
  coreModule?: boolean;
  couldNotResolve?: boolean;
  dependencies: { resolved: string; coreModule?: boolean; couldNotResolve?: boolean }[];
}

/** The part of dependency-cruiser's JSON output these scripts read. */
export interface CruiseResult {
  modules: CruisedModule[];
  summary: { violations: Violation[]; totalCruised: number };
}

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The depcruise executable: DEPCRUISE_BIN when set (e.g. an install outside the project),
 * else the project's node_modules/.bin/depcruise. Throws when neither exists.
 */
export function depcruiseBin(): string {
  const bin = process.env.DEPCRUISE_BIN ?? join(REPO_ROOT, "node_modules", ".bin", "depcruise");
  if (!existsSync(bin)) {
    throw new Error(`dependency-cruiser not found at ${bin}: run npm install (it is a devDependency)`);
  }
  return bin;
}

/**
 * Cruises CRUISED (those that exist) under `cwd` with the rules file there.
 * `ignoreKnown`: soften the module-level violations listed in the baseline (dependency-cruiser
 * does not soften folder-level ones: see {@link newViolations}). Throws when depcruise fails to run.
 */
export function cruise(cwd: string, options: { ignoreKnown: boolean }): CruiseResult {
  const folders = CRUISED.filter((folder) => existsSync(join(cwd, folder)));
  const args = ["--config", RULES_FILE, "--output-type", "json", "--no-progress"];
  if (options.ignoreKnown && existsSync(join(cwd, BASELINE_FILE))) args.push("--ignore-known", BASELINE_FILE);
  let out: string;
  try {
    out = execFileSync(depcruiseBin(), [...args, ...folders], {
      cwd,
      encoding: "utf8",
      maxBuffer: 256 << 20,
    });
  } catch (error) {
    // depcruise exits non-zero when rules are broken; its JSON is still on stdout.
    const stdout = (error as { stdout?: string }).stdout;
    if (!stdout) throw error;
    out = stdout;
  }
  return JSON.parse(out) as CruiseResult;
}

/** The baseline's entries under `cwd` (empty when there is no baseline file). */
export function readBaseline(cwd: string): Violation[] {
  const file = join(cwd, BASELINE_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Violation[]) : [];
}

/** A violation's identity for matching against the baseline: rule, kind, from and to. */
export function violationKey(v: Violation): string {
  return `${v.rule.name}\t${v.type}\t${v.from}\t${v.to}`;
}

/**
 * The violations of `result` that still count: errors not softened by `--ignore-known` and not
 * in `baseline`. The baseline check is repeated here because dependency-cruiser 17 softens only
 * module-level violations, not folder-level ones (rule `no-circular-lib-folders`).
 */
export function newViolations(result: CruiseResult, baseline: Violation[]): Violation[] {
  const known = new Set(baseline.map(violationKey));
  return result.summary.violations.filter((v) => v.rule.severity === "error" && !known.has(violationKey(v)));
}
