/**
 * The admin analytics page (public/operator/analytics.*) in a real browser: Debian's Chromium
 * driven by playwright-core against the local host (strict CSP, Chart.js served from
 * /vendor/). Tasks of two clients are paid and completed or failed over the API; the operator
 * signs in with the admin key and sees the revenue chart (stacked bars by service and week),
 * the completion doughnut, both drawn (non-blank canvases), their data tables, and the top
 * clients. Also: a role without `analytics.read` (the 403 names it), the nav link from the
 * console, French.
 *
 * Skipped (with a message) when no Chromium binary exists; `.ci/run` installs it.
 * `UPDATE_SCREENSHOTS=1` writes the screenshot to docs/screenshots/ (else to a temp dir).
 */

import type { Locator } from "playwright-core";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { createStaff } from "../helpers/staff.js";
import { pngProof, validTask } from "../helpers/tasks.js";
import {
  CHROMIUM,
  newWatchedContext,
  shot,
  signInStaff,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

warnIfNoChromium("tests/e2e/analytics.test.ts");

// Timeouts: each test drives Chromium (another process) through pages and API round trips, up to
// ~10 s on an idle machine; 180 s a test (30 s a page wait, 20 s an expect.poll: browser.ts)
// leaves room for a loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("analytics page in Chromium", () => {
  useTestDatabase();

  const env = useBrowserHost("ptes-e2e-analytics-");
  const { api } = env;
  const watch: Watch = { problems: [], requests: [] };

  /** Submits with `key`, approves at `price`, records payment, then completes or fails the task. */
  async function runTask(key: string, service: string, price: number, end: "complete" | "fail") {
    const submitted = await api("POST", "/api/submit-task", key, { ...validTask, service_type: service });
    expect(submitted.status).toBe(201);
    const id = submitted.body.task_id as string;
    const steps: Record<string, unknown>[] = [
      { path: "/api/task-review", action: "approve", price_cad: price },
      { path: "/api/task-payment", note: "bank transfer" },
      { path: "/api/task-complete", action: "dispatch" },
      { path: "/api/task-complete", action: "on_site" },
      end === "complete"
        ? {
            path: "/api/task-complete",
            action: "complete",
            no_visit_reason: "Test: completed without a site visit",
            proof_files: [pngProof()],
          }
        : { path: "/api/task-complete", action: "fail", reason: "Site closed." },
    ];
    for (const { path: p, ...body } of steps) {
      const res = await api("POST", p as string, env.admin, { task_id: id, ...body });
      expect(res.status, `${p} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    return id;
  }

  /** Pixels drawn on a canvas (alpha > 0). */
  function paintedPixels(canvas: Locator) {
    return canvas.evaluate((el: HTMLCanvasElement) => {
      const data = el.getContext("2d")!.getImageData(0, 0, el.width, el.height).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
      return n;
    });
  }

  it("draws revenue by service and week, completion rate and top clients", async () => {
    const alpha = await makeKey(["task_create"], "alpha@example.com");
    const beta = await makeKey(["task_create"], "beta@example.com");
    await runTask(alpha, "SVC-01", 400, "complete");
    await runTask(alpha, "SVC-03", 250.5, "complete");
    await runTask(beta, "SVC-01", 300, "fail");
    const finance = await createStaff("finance", "Fiona Finance");
    const owner = await createStaff("owner", "Olive Owner");

    const data = (await api("GET", "/api/analytics?action=dashboard", env.admin)).body;
    expect(data.revenue_total_cad).toBe(950.5);
    expect(data.completion_rate).toMatchObject({ completed: 2, failed: 1, cancelled: 0 });

    const shell = await fetch(`${env.host.url}/operator/analytics`);
    expect(shell.status).toBe(200);
    expect(shell.headers.get("content-security-policy")).toMatch(/script-src 'self';.*style-src 'self';/);
    expect((await fetch(`${env.host.url}/vendor/chart.umd.min.js`)).status).toBe(200);

    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 1100, height: 900 },
      locale: "en-CA",
    });
    const page = await context.newPage();

    // The page asks for a staff sign-in; a role without analytics.read is sent to the console it
    // can use (issue 44 item 2), which has no Analytics link in its navigation.
    await signInStaff(page, env.host.url, finance, "/operator/analytics");
    await page.waitForURL((url) => url.pathname === "/operator/", { timeout: 30_000 });
    await page.locator("#whoami").filter({ hasText: "finance" }).waitFor();
    expect(await page.locator("#nav a[href='/operator/analytics']").isVisible()).toBe(false);
    await page.getByRole("button", { name: "Log out" }).click();
    await signInStaff(page, env.host.url, owner, "/operator/analytics");
    await page.getByRole("heading", { level: 1, name: "Analytics", exact: true }).waitFor();
    expect(await page.locator("#whoami").textContent()).toBe("Olive Owner · owner");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    // Revenue: the total, a drawn stacked bar chart with a text alternative, and its table.
    expect(await page.locator("#revenue-total").textContent()).toBe("$950.50");
    const revenue = page.locator("#sec-revenue").locator("..");
    const bars = revenue.locator("canvas");
    expect(await bars.getAttribute("role")).toBe("img");
    // The three payments are seconds apart: one ISO week (Toronto) of payment, unless a Monday
    // 00:00 fell between them. So the weeks are checked by their sums, which do not depend on
    // which side of that boundary the test ran: one or two weeks, $950.50 in all.
    const label = (await bars.getAttribute("aria-label"))!;
    expect(label).toMatch(/^Stacked bar chart of revenue .*\d{4}-W\d\d: \$[\d,.]+$/);
    const weekTotals = [...label.matchAll(/\d{4}-W\d\d: \$([\d,.]+)/g)].map((m) =>
      Number(m[1]!.replace(/,/g, "")),
    );
    expect(weekTotals.length).toBeGreaterThanOrEqual(1);
    expect(weekTotals.length).toBeLessThanOrEqual(2);
    expect(weekTotals.reduce((a, b) => a + b, 0)).toBeCloseTo(950.5, 2);
    await expect.poll(() => paintedPixels(bars)).toBeGreaterThan(1000);
    const chart = await bars.evaluate((el) => {
      const c = (globalThis as any).Chart.getChart(el);
      return { type: c.config.type, datasets: c.data.datasets.map((d: any) => [d.label, d.data]) };
    });
    expect(chart.type).toBe("bar");
    expect(
      chart.datasets.map(([service, perWeek]: [string, number[]]) => [
        service,
        perWeek.length,
        perWeek.reduce((a, b) => a + b, 0),
      ]),
    ).toEqual([
      ["SVC-01", weekTotals.length, 700],
      ["SVC-03", weekTotals.length, 250.5],
    ]);
    const revenueTable = page.getByRole("region", { name: "Revenue by service and week" });
    expect(await revenueTable.locator("thead th").allTextContents()).toEqual([
      "Week",
      "SVC-01",
      "SVC-03",
      "Total",
    ]);
    expect(await revenueTable.locator("tfoot").textContent()).toBe("Total$700.00$250.50$950.50");

    // Completion: the rate, a drawn doughnut, its table.
    expect(await page.locator("#completion-rate").textContent()).toBe("66.7 %");
    const doughnut = page.locator("#sec-completion").locator("..").locator("canvas");
    expect(await doughnut.getAttribute("aria-label")).toBe(
      "Doughnut chart: 2 completed, 1 failed, 0 cancelled.",
    );
    await expect.poll(() => paintedPixels(doughnut)).toBeGreaterThan(1000);
    const outcomes = page.getByRole("region", { name: "Completion rate" }).locator("tbody tr");
    expect(await outcomes.allTextContents()).toEqual(["completed2", "failed1", "cancelled0"]);

    // Top clients, by revenue.
    const clients = page.getByRole("region", { name: "Top clients" }).locator("tbody tr");
    expect(await clients.allTextContents()).toEqual([
      "alpha@example.com—2$650.50",
      "beta@example.com—1$300.00",
    ]);
    await shot(page, env.shots, "analytics.png", true);

    // French, from the header.
    await page.getByLabel("Language").selectOption("fr");
    await page.getByRole("heading", { level: 1, name: "Analytique", exact: true }).waitFor();
    await expect.poll(() => page.locator("#completion-rate").textContent()).toMatch(/^66,7\s%$/);
    await expect
      .poll(() => paintedPixels(page.locator("#sec-revenue").locator("..").locator("canvas")))
      .toBeGreaterThan(1000);

    // A period with no payment: empty states instead of charts.
    await page.getByLabel("Du (facultatif)").fill("2020-01-01");
    await page.getByLabel("Au (facultatif)").fill("2020-01-31");
    await page.getByRole("button", { name: "Afficher" }).click();
    await expect
      .poll(() => page.locator("main").textContent())
      .toContain("Aucune tâche payée dans cette période.");
    expect(page.url()).toContain("#/?date_from=2020-01-01&date_to=2020-01-31");
    expect(await page.locator("canvas").count()).toBe(0);
    // No credential went into a URL.
    expect(watch.requests.filter((r) => r.url.includes(owner.password) || r.url.includes("sts_"))).toEqual(
      [],
    );
    await context.close();
    expect(watch.problems).toEqual([]);
  }, 180_000);
});
