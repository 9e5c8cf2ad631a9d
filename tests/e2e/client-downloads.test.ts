/**
 * The client dashboard's downloads in a real browser (Chromium via playwright-core, vercel.json's
 * CSP): each invoice row has a PDF button that fetches GET /api/client-account?invoice_id=…&format=pdf
 * with the JWT in the Authorization header and saves it as `<number>.pdf` (parsed back with PDF.js),
 * the invoice page has the same button, and "Download my data" saves the Law 25 export as JSON;
 * French labels in a French browser. Skipped (with a message) when no Chromium binary exists.
 */
import { readFileSync } from "node:fs";
import { decodeJwt } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { openLinkedAccount } from "../accounts/helpers.js";
import { pdfText } from "../billing/pdf-text.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { validTask } from "../helpers/tasks.js";
import { CHROMIUM, newWatchedContext, useBrowserHost, type Watch, warnIfNoChromium } from "./browser.js";

warnIfNoChromium("tests/e2e/client-downloads.test.ts");

// Timeouts: each test drives Chromium (another process) through pages and API round trips, up to
// ~10 s on an idle machine; 180 s a test (30 s a page wait, 20 s an expect.poll: browser.ts)
// leaves room for a loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("client dashboard downloads in Chromium", () => {
  useTestDatabase();
  const env = useBrowserHost("ptes-e2e-downloads-");
  const watch: Watch = { problems: [], requests: [] };
  const email = `downloads.${Date.now()}@example.com`;
  let jwt: string;
  let invoices: { invoice_id: string; number: string; kind: string }[];

  beforeAll(async () => {
    const key = await makeKey(["audit_only", "task_create"], email);
    ({ jwt } = await openLinkedAccount(key));
    expect(
      (await env.api("POST", "/api/account-admin", env.admin, { action: "deposit", email, amount_cad: 500 }))
        .status,
    ).toBe(200);
    const sub = await fetch(`${env.host.url}/api/submit-task`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ ...validTask, lang: "en" }),
    });
    const taskId = ((await sub.json()) as { task_id: string }).task_id;
    const review = await env.api("POST", "/api/task-review", env.admin, {
      task_id: taskId,
      action: "approve",
      price_cad: 120,
    });
    expect(review.status).toBe(200);
    const dash = await fetch(`${env.host.url}/api/client-account?include=dashboard`, {
      headers: { authorization: `Bearer ${jwt}` },
    });
    invoices = ((await dash.json()) as { dashboard: { invoices: typeof invoices } }).dashboard.invoices;
    expect(invoices.map((i) => i.kind).sort()).toEqual(["deposit", "task_charge"]);
  });

  async function openDashboard(locale: string) {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 1280, height: 900 },
      locale,
      acceptDownloads: true,
    });
    const expiresAt = new Date(decodeJwt(jwt).exp! * 1000).toISOString();
    await context.addInitScript(
      (session) => {
        if (location.protocol === "http:") sessionStorage.setItem("client.jwt", JSON.stringify(session));
      },
      { token: jwt, expiresAt },
    );
    const page = await context.newPage();
    await page.goto(`${env.host.url}/client/#/dashboard`);
    return { context, page };
  }

  it("downloads each invoice as PDF and the data export as JSON, with the JWT in the header", async () => {
    const { context, page } = await openDashboard("en-CA");
    const charge = invoices.find((i) => i.kind === "task_charge")!;
    const button = page.getByRole("button", { name: `Download invoice ${charge.number} as PDF` });
    await button.waitFor();
    const [pdf] = await Promise.all([page.waitForEvent("download"), button.click()]);
    expect(pdf.suggestedFilename()).toBe(`${charge.number}.pdf`);
    const bytes = new Uint8Array(readFileSync((await pdf.path())!));
    const text = await pdfText(bytes);
    expect(text).toContain(`Number: ${charge.number}`);
    expect(text).toContain("INVOICE");
    expect(text).toContain("Total: $120.00");
    // The PDF request carried the JWT in Authorization, never in the URL.
    const sent = watch.requests.find((r) => r.url.includes(`invoice_id=${charge.invoice_id}&format=pdf`))!;
    expect(sent.headers.authorization).toBe(`Bearer ${jwt}`);
    expect(sent.url).not.toContain(jwt);

    const [data] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download my data" }).click(),
    ]);
    expect(data.suggestedFilename()).toMatch(/^my-data-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(readFileSync((await data.path())!, "utf8"));
    expect(exported.export.account.email).toBe(email);
    expect(exported.export.invoices).toHaveLength(2);

    // The invoice page has the same PDF button.
    await page.getByRole("link", { name: charge.number }).click();
    const onPage = page.getByRole("button", { name: `Download invoice ${charge.number} as PDF` });
    await onPage.waitFor();
    const [again] = await Promise.all([page.waitForEvent("download"), onPage.click()]);
    expect(again.suggestedFilename()).toBe(`${charge.number}.pdf`);
    expect(watch.problems).toEqual([]);
    await context.close();
  }, 180_000);

  it("labels the downloads in French in a French browser", async () => {
    const { context, page } = await openDashboard("fr-CA");
    await page.getByRole("button", { name: "Télécharger mes données" }).waitFor();
    const deposit = invoices.find((i) => i.kind === "deposit")!;
    expect(
      await page.getByRole("button", { name: `Télécharger la pièce ${deposit.number} en PDF` }).count(),
    ).toBe(1);
    await context.close();
  }, 180_000);
});
