/**
 * docs/tests.md (issue 30 item 3) is current: regenerating it gives the committed text, and every
 * public endpoint and MCP tool has at least one test file that exercises it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TEST_INDEX_FILE, testIndexText } from "../../scripts/generate-test-index.js";

describe("docs/tests.md", () => {
  const text = testIndexText();
  it("is current (npm run tests:index)", () => {
    expect(readFileSync(TEST_INDEX_FILE, "utf8")).toBe(text);
  });
  it("names a test file for every endpoint and tool", () => {
    const untested = text.split("\n").filter((line) => line.includes("**none**"));
    expect(untested).toEqual([]);
  });
});
