/**
 * The committed task card (lib/mcp/app/bundle.generated.ts) is the build of its sources
 * (apps/task-card, scripts/build-mcp-app.ts; docs/decisions.md 44): a change to the app without
 * `npm run app:build` fails here, never in a host. Also the size docs/performance.md quotes.
 */
import { describe, expect, it } from "vitest";
import { TASK_CARD_HTML } from "../../lib/mcp/app/bundle.generated.js";
import { buildTaskCard } from "../../scripts/build-mcp-app.js";

describe("the task card bundle", () => {
  it("is the build of apps/task-card, one self-contained HTML file", async () => {
    const { html, gzipBytes } = await buildTaskCard();
    expect(html === TASK_CARD_HTML, "lib/mcp/app/bundle.generated.ts is stale: run npm run app:build").toBe(
      true,
    );
    expect(html).toMatch(/^<!doctype html>/);
    // Nothing fetched: no external script, stylesheet or image.
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    expect(gzipBytes).toBeGreaterThan(0);
  }, 120_000);
});
