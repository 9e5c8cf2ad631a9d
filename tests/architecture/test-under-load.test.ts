/**
 * `npm run test:under-load` (scripts/test-under-load.ts): its command line. The hogs and the
 * suite itself are exercised by running it (`.ci/run` runs it once after the normal runs).
 */
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../scripts/test-under-load.js";

describe("npm run test:under-load's options", () => {
  it("defaults to one run and one hog per core, passing everything else to vitest", () => {
    expect(parseArgs(["tests/money.test.ts", "--reporter", "dot"])).toEqual({
      runs: 1,
      hogs: availableParallelism(),
      vitestArgs: ["tests/money.test.ts", "--reporter", "dot"],
    });
  });

  it("reads --runs and --hogs wherever they stand", () => {
    expect(parseArgs(["--runs", "3", "tests/http", "--hogs", "0"])).toEqual({
      runs: 3,
      hogs: 0,
      vitestArgs: ["tests/http"],
    });
  });

  it("refuses a count that is not a whole number in range, naming the option", () => {
    expect(() => parseArgs(["--runs", "0"])).toThrow(/--runs takes a whole number \(at least 1\)/);
    expect(() => parseArgs(["--hogs", "-1"])).toThrow(/--hogs takes a whole number/);
    expect(() => parseArgs(["--runs", "two"])).toThrow(/--runs/);
    expect(() => parseArgs(["--runs"])).toThrow(/--runs/);
  });
});
