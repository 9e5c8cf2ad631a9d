/**
 * The task card in an MCP Apps host (issue 43; docs/mcp.md "In the conversation"), in Chromium via
 * playwright-core: a minimal host page (tests/e2e/mcp-app-host/host.ts: the official MCP client,
 * revision 2026-07-28, and the extension's own `AppBridge`) loads our `ui://` resource from the
 * running service into a sandboxed iframe under the CSP its `_meta.ui.csp` asks for, and drives:
 * - an estimate → Submit (asked, then confirmed) → a sandbox task polled to completed, its proof
 *   photo shown from `resources/read` and its receipt verified;
 * - a real task awaiting payment → Pay opens the pay page through `ui/open-link`; a host refusing
 *   the link → the address shown to copy;
 * - a real task done by a field person: the assignee, the site visit with its map, the receipt,
 *   then a dispute opened from the card;
 * - a task on site whose proof is still arriving: the photo uploaded so far with its capture time
 *   and place, the rest as "arriving"; once completed, every photo with its capture line;
 * - a task handle and a `tasks/get` result of the Tasks extension (revision 2026-07-28, raw
 *   JSON-RPC to the service) handed to the card → the Task view of that task, polled to completed;
 * - what the person does (Pay, a dispute) and a status the card sees change reach the model as
 *   `ui/update-model-context`;
 * - an unknown task → the error view in words.
 * Assertions are on what the person sees. Screenshots at 390×844 and 1280×800, fr/en, light/dark
 * (docs/screenshots/mcp-app-*.png with UPDATE_SCREENSHOTS=1). Skipped without Chromium.
 */
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { build } from "vite";
import { beforeAll, describe, expect, it } from "vitest";
import { findServices } from "../../lib/catalog/find-services.js";
import { assign, near, paidTask, uploadProof, visit } from "../field/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { rpc2026, TASKS_EXTENSION } from "../helpers/mcp-2026.js";
import { createStaff, staffHeaders, type TestStaff } from "../helpers/staff.js";
import { completeTask, pngProof, reviewTask, submitTask, validTask } from "../helpers/tasks.js";
import {
  CHROMIUM,
  newWatchedContext,
  ROOT,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

warnIfNoChromium("tests/e2e/mcp-app.test.ts");

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

// Timeouts: each test drives Chromium through a host page, an iframe and MCP round trips (a
// sandbox task polls once a second for ~6 steps): ~15 s on an idle machine; 180 s a test leaves
// room for a loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("the task card in an MCP Apps host", () => {
  useTestDatabase();
  const env = useBrowserHost("ptes-e2e-app-");
  let hostJs: string;
  let key: string;
  let dispatcher: TestStaff;
  let field: TestStaff;

  beforeAll(async () => {
    const output = await build({
      root: `${ROOT}/tests/e2e/mcp-app-host`,
      configFile: false,
      publicDir: false,
      logLevel: "warn",
      build: {
        write: false,
        target: "es2022",
        minify: false,
        lib: { entry: `${ROOT}/tests/e2e/mcp-app-host/host.ts`, formats: ["es"], fileName: "host" },
      },
    });
    const results = Array.isArray(output) ? output : [output];
    const chunk = results
      .flatMap((r) => ("output" in r ? r.output : []))
      .find((o) => o.type === "chunk" && o.isEntry);
    hostJs = chunk?.type === "chunk" ? chunk.code : "";
    key = await makeKey(["task_create", "audit_only", "task_cancel"]);
    dispatcher = await createStaff("dispatcher");
    field = await createStaff("field", "Sam from the field");
  }, 120_000);

  /** Opens the host page (same origin as the service) in a fresh context. */
  async function openHost(
    watch: Watch,
    options: { locale: "en" | "fr"; theme: "light" | "dark"; viewport: typeof PHONE; denyOpenLink?: boolean },
  ): Promise<Page> {
    const context = await newWatchedContext(env.browser, watch, { viewport: options.viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const url = `${env.host.url}/__apps-host`;
    await page.route(url, (route) =>
      route.fulfill({
        contentType: "text/html",
        body:
          `<!doctype html><html lang="${options.locale}"><head><meta charset="utf-8">` +
          '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Host</title>' +
          `<style>body{margin:0;background:${options.theme === "dark" ? "#0d1117" : "#fafafa"}}</style></head>` +
          `<body><div id="slot"></div><script type="module">${hostJs.replace(/<\/script/g, "<\\/script")}</script></body></html>`,
      }),
    );
    await page.addInitScript(
      (config) => {
        (window as unknown as { hostConfig: unknown }).hostConfig = config;
      },
      {
        apiKey: key,
        locale: options.locale === "fr" ? "fr-CA" : "en-CA",
        theme: options.theme,
        denyOpenLink: options.denyOpenLink ?? false,
      },
    );
    await page.goto(url);
    await page.waitForFunction(() => (window as any).hostReady || (window as any).hostError);
    expect(await page.evaluate(() => (window as any).hostError ?? null)).toBeNull();
    return page;
  }

  const show = (page: Page, tool: string, args: Record<string, unknown>) =>
    page.evaluate(([t, a]) => (window as any).mcpHost.show(t, a), [tool, args] as const);

  /** A full-page screenshot once the host has sized the iframe to the card (ui/notifications/size-changed). */
  async function snap(page: Page, name: string) {
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await expect
      .poll(async () => {
        const wanted = await frame.evaluate(() => document.documentElement.scrollHeight);
        const given = await page.evaluate(
          () => document.querySelector("iframe")!.getBoundingClientRect().height,
        );
        return given >= wanted;
      })
      .toBe(true);
    // A fullPage screenshot paints an out-of-process iframe only partly: grow the viewport instead.
    const viewport = page.viewportSize()!;
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, height) });
    await page.waitForTimeout(300); // one paint of the grown viewport (not an assertion)
    await page.screenshot({ path: `${env.shots}/${name}`, scale: "css", animations: "disabled" });
    await page.setViewportSize(viewport);
  }

  it("estimate → confirmed submit → a sandbox task to completed, its photo and its verified receipt", async () => {
    const watch: Watch = { problems: [], requests: [] };
    const page = await openHost(watch, { locale: "en", theme: "light", viewport: PHONE });
    await show(page, "get_estimate", { hours: 1, location: "Laval" });
    const card = page.frameLocator("iframe");
    await expect.poll(() => card.getByRole("heading", { name: "Estimate" }).isVisible()).toBe(true);
    await expect.poll(() => card.getByTestId("total").textContent()).toMatch(/^\$\d+\.\d\d$/);
    await expect.poll(() => card.getByText(/Laval — ✓ In the service zone/).isVisible()).toBe(true);
    // What the chosen service includes, from the catalog (list_services through the host).
    const catalog = findServices({ includeContract: false }).services;
    const includes = card.getByTestId("includes");
    await expect.poll(() => includes.textContent()).toContain(`Includes — ${catalog[0]!.name}`);
    expect(await includes.locator("li").allTextContents()).toEqual(catalog[0]!.deliverables);
    // The speed comes with the deadline it sets (submit_task takes no other deadline).
    expect(await card.getByLabel("Urgency").locator("option").allTextContents()).toEqual([
      "Standard — done within 72 h of payment",
      "Urgent — done within 24 h of payment (× 1.25)",
    ]);
    const last = catalog[catalog.length - 1]!;
    await card.getByLabel("Service").selectOption(last.id);
    await expect.poll(() => includes.textContent()).toContain(`Includes — ${last.name}`);
    expect(await includes.locator("li").allTextContents()).toEqual(last.deliverables);
    await card.getByLabel("Service").selectOption(catalog[0]!.id);
    await expect.poll(() => includes.textContent()).toContain(`Includes — ${catalog[0]!.name}`);

    await card.getByLabel("What to do").fill("Photograph the storefront and the opening hours.");
    await card.getByLabel("Your e-mail").fill("me@example.com");
    expect(await card.getByLabel("Urgency").inputValue()).toBe("standard");
    await card.getByRole("button", { name: "Submit…" }).click();
    // Asked first: nothing is submitted until the person confirms.
    await expect.poll(() => card.getByTestId("confirm-submit").isVisible()).toBe(true);
    const before = watch.requests.filter((r) => r.headers["mcp-name"] === "submit_task").length;
    expect(before).toBe(0);
    await card.getByTestId("confirm-submit").click();
    await expect.poll(() => card.getByTestId("status").textContent(), { timeout: 60_000 }).toBe("Completed");
    const photo = card.locator("img[src^='data:image/png;base64,']");
    await expect.poll(() => photo.count()).toBe(1);
    expect(await photo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    await expect.poll(() => card.getByText(/^SHA-256 [0-9a-f]{64}$/).count()).toBe(1);
    expect(await card.getByTestId("receipt").textContent()).toBe(
      "✓ Signature verified against the service's keys",
    );
    expect(await card.getByText("Sandbox receipt: it proves nothing happened in the world").isVisible()).toBe(
      true,
    );
    expect(await card.getByText("Updates stopped: the task is finished.").isVisible()).toBe(true);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  }, 180_000);

  it("a real task awaiting payment: Pay opens the pay page; a host refusing it → the address to copy", async () => {
    const { body } = await submitTask(validTask, keyHeaders(key));
    const taskId = body.task_id as string;
    expect(
      (await reviewTask(env.admin, { task_id: taskId, action: "approve", price_cad: 120 })).res.status,
    ).toBe(200);

    const watch: Watch = { problems: [], requests: [] };
    const page = await openHost(watch, { locale: "fr", theme: "dark", viewport: PHONE });
    await show(page, "check_task_status", { task_id: taskId });
    const card = page.frameLocator("iframe");
    await expect.poll(() => card.getByTestId("status").textContent()).toBe("Approuvée, paiement attendu");
    expect(
      await card
        .getByText(/120,00\s\$/)
        .first()
        .isVisible(),
    ).toBe(true);
    await snap(page, "mcp-app-pay-390-fr-dark.png");
    await card.getByTestId("pay").click();
    await expect.poll(() => page.evaluate(() => (window as any).mcpHost.opened.length)).toBe(1);
    const opened = await page.evaluate(() => (window as any).mcpHost.opened[0] as string);
    expect(opened).toMatch(new RegExp(`/pay/#task_id=${taskId}&pay_token=`));
    // The model is told (ui/update-model-context), in words and as data.
    await expect.poll(() => page.evaluate(() => (window as any).mcpHost.context.length)).toBe(1);
    const told = await page.evaluate(() => (window as any).mcpHost.context[0]);
    expect(told.structuredContent).toEqual({ event: "pay_page_opened", task_id: taskId });
    expect(told.content[0].text).toContain(`The person opened the pay page of task ${taskId} to pay it.`);
    await page.context().close();

    const denying = await openHost(watch, {
      locale: "en",
      theme: "light",
      viewport: PHONE,
      denyOpenLink: true,
    });
    await show(denying, "check_task_status", { task_id: taskId });
    const card2 = denying.frameLocator("iframe");
    await expect.poll(() => card2.getByTestId("pay").isVisible()).toBe(true);
    await card2.getByTestId("pay").click();
    await expect
      .poll(() => card2.getByText("The host did not open the page. Copy this address:").isVisible())
      .toBe(true);
    expect(await card2.getByRole("textbox", { name: "Pay" }).inputValue()).toMatch(/\/pay\/#task_id=/);
    await expect
      .poll(() => denying.evaluate(() => (window as any).mcpHost.context.at(-1)?.structuredContent?.event))
      .toBe("pay_page_refused");
    expect(watch.problems).toEqual([]);
    await denying.context().close();
  }, 180_000);

  it("a task done on site: assignee, site visit with its map, receipt; then a dispute from the card", async () => {
    const { taskId, place } = await paidTask(env.admin, key);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    const checkIn = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 60),
    });
    expect(checkIn.res.status, JSON.stringify(checkIn.body)).toBe(200);
    const done = await completeTask(env.admin, {
      task_id: taskId,
      action: "complete",
      operator_notes: "Storefront photographed.",
      proof_files: [pngProof()],
    });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);

    const watch: Watch = { problems: [], requests: [] };
    const page = await openHost(watch, { locale: "en", theme: "dark", viewport: DESKTOP });
    await show(page, "check_task_status", { task_id: taskId });
    const card = page.frameLocator("iframe");
    await expect.poll(() => card.getByTestId("status").textContent()).toBe("Completed");
    expect(await card.getByText("Sam from the field").isVisible()).toBe(true);
    expect(await card.getByText("✓ Within the geofence").isVisible()).toBe(true);
    const map = card.getByRole("img", { name: "Map of the site and the check-in distance" });
    expect(await map.isVisible()).toBe(true);
    expect(await map.locator("text").textContent()).toMatch(/^(59|60|61) m$/);
    expect(await card.getByRole("link", { name: "Open in OpenStreetMap" }).getAttribute("href")).toMatch(
      /^https:\/\/www\.openstreetmap\.org\/\?mlat=/,
    );
    await expect.poll(() => card.locator("img[src^='data:image/png;base64,']").count()).toBe(1);
    expect(await card.getByTestId("receipt").textContent()).toBe(
      "✓ Signature verified against the service's keys",
    );
    expect(await card.getByText("✓ Names exactly these files").isVisible()).toBe(true);
    await snap(page, "mcp-app-task-1280-en-dark.png");
    await page.setViewportSize(PHONE);
    await snap(page, "mcp-app-task-390-en-dark.png");

    await card.getByText("Dispute", { exact: true }).click();
    await card.getByLabel("Reason").selectOption("incomplete");
    await card.getByLabel("What went wrong").fill("The opening hours are missing from the photos.");
    await card.getByRole("button", { name: "Open the dispute" }).click();
    await expect.poll(() => card.getByTestId("dispute").textContent()).toBe("Open — Incomplete");
    const told = await page.evaluate(() => (window as any).mcpHost.context.at(-1));
    expect(told.structuredContent).toEqual({
      event: "dispute_opened",
      task_id: taskId,
      reason: "incomplete",
    });
    expect(told.content[0].text).toContain(
      `The person opened a dispute on task ${taskId} (reason: incomplete): "The opening hours are missing from the photos."`,
    );
    expect(watch.problems).toEqual([]);
    await page.context().close();

    const fr = await openHost(watch, { locale: "fr", theme: "light", viewport: DESKTOP });
    await show(fr, "check_task_status", { task_id: taskId });
    const frCard = fr.frameLocator("iframe");
    await expect.poll(() => frCard.getByTestId("status").textContent()).toBe("Terminée");
    expect(await frCard.getByTestId("dispute").textContent()).toBe("Ouverte — Incomplète");
    await expect.poll(() => frCard.locator("img[src^='data:image/png;base64,']").count()).toBe(1);
    await snap(fr, "mcp-app-task-1280-fr-light.png");
    await fr.setViewportSize(PHONE);
    await snap(fr, "mcp-app-task-390-fr-light.png");
    await fr.context().close();

    // The other theme of each language, at both widths.
    for (const [locale, theme] of [
      ["en", "light"],
      ["fr", "dark"],
    ] as const) {
      const other = await openHost(watch, { locale, theme, viewport: DESKTOP });
      await show(other, "check_task_status", { task_id: taskId });
      const otherCard = other.frameLocator("iframe");
      await expect
        .poll(() => otherCard.getByTestId("status").textContent())
        .toBe(locale === "fr" ? "Terminée" : "Completed");
      await expect.poll(() => otherCard.locator("img[src^='data:image/png;base64,']").count()).toBe(1);
      await snap(other, `mcp-app-task-1280-${locale}-${theme}.png`);
      await other.setViewportSize(PHONE);
      await snap(other, `mcp-app-task-390-${locale}-${theme}.png`);
      await other.context().close();
    }
    expect(watch.problems).toEqual([]);
  }, 480_000);

  it("proof still arriving: the photo that exists with its capture time and place, the rest as arriving", async () => {
    const { taskId, place } = await paidTask(env.admin, key);
    await assign(staffHeaders(dispatcher), { task_id: taskId, staff_id: field.staffId });
    const checkIn = await visit(staffHeaders(field), {
      task_id: taskId,
      action: "check_in",
      ...near(place, 30),
    });
    expect(checkIn.res.status, JSON.stringify(checkIn.body)).toBe(200);
    // A photo taken with a GPS fix (EXIF: 2026-11-20 15:30 UTC at 45.5048, -73.5772), sent from the site.
    const jpeg = readFileSync(`${ROOT}/tests/fixtures/capture/with-gps.jpg`).toString("base64");
    const upload = await uploadProof(staffHeaders(field), {
      task_id: taskId,
      file: { filename: "storefront.jpg", type: "image/jpeg", content: jpeg },
    });
    expect(upload.res.status, JSON.stringify(upload.body)).toBeLessThan(300);

    const watch: Watch = { problems: [], requests: [] };
    const page = await openHost(watch, { locale: "en", theme: "light", viewport: PHONE });
    await show(page, "check_task_status", { task_id: taskId });
    const card = page.frameLocator("iframe");
    await expect.poll(() => card.getByTestId("status").textContent()).toBe("On site");
    await expect.poll(() => card.locator("img[src^='data:image/jpeg;base64,']").count()).toBe(1);
    expect(await card.getByText(/^SHA-256 [0-9a-f]{64}$/).count()).toBe(1);
    const capture = card.getByTestId("capture");
    // The host's time zone is America/Toronto: 15:30 UTC is 10:30 there.
    expect(await capture.textContent()).toMatch(
      /^Taken Nov 20, 2026, 10:30.*At 45\.50480, -73\.57720 — [\d.]+ km from the site$/,
    );
    expect(await card.getByTestId("arriving").textContent()).toBe(
      "More photos arriving…Sent from the site; shown as they arrive.",
    );
    await snap(page, "mcp-app-arriving-390-en-light.png");
    await page.context().close();

    // Completed with a second file that carries no capture metadata: both shown, nothing arriving.
    const done = await completeTask(env.admin, {
      task_id: taskId,
      action: "complete",
      operator_notes: "Storefront photographed.",
      proof_files: [pngProof()],
    });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    const fr = await openHost(watch, { locale: "fr", theme: "dark", viewport: PHONE });
    await show(fr, "check_task_status", { task_id: taskId });
    const frCard = fr.frameLocator("iframe");
    await expect.poll(() => frCard.getByTestId("status").textContent()).toBe("Terminée");
    await expect.poll(() => frCard.locator("img[src^='data:image/']").count()).toBe(2);
    expect(await frCard.getByTestId("arriving").count()).toBe(0);
    const lines = await frCard.getByTestId("capture").allTextContents();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Prise .*2026.*À 45\.50480, -73\.57720 — [\d.]+ km du site$/);
    expect(lines[1]).toBe("Ni heure ni lieu de prise dans ce fichier");
    // The receipt names the files in the order shown (field upload first, then the completion's).
    expect(await frCard.getByText("✓ Nomme exactement ces fichiers").isVisible()).toBe(true);
    expect(watch.problems).toEqual([]);
    await fr.context().close();
  }, 180_000);

  it("a Tasks-extension handle and a tasks/get result open the Task view; status changes reach the model", async () => {
    const rpc = (method: string, params: Record<string, unknown>) =>
      rpc2026(`${env.host.url}/api/mcp`, method, params, {
        capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
        headers: { "x-api-key": key },
      });
    const created = await rpc("tools/call", {
      name: "submit_task",
      arguments: { ...validTask, sandbox: true },
    });
    const handle = created.body.result;
    expect(handle).toMatchObject({ resultType: "task", status: "working" });
    const got = (await rpc("tasks/get", { taskId: handle.taskId })).body.result;
    expect(got).toMatchObject({ resultType: "complete", taskId: handle.taskId, status: "working" });

    const watch: Watch = { problems: [], requests: [] };
    const page = await openHost(watch, { locale: "en", theme: "light", viewport: PHONE });
    await page.evaluate(([r]) => (window as any).mcpHost.showResult("submit_task", r), [got] as const);
    const card = page.frameLocator("iframe");
    expect(await card.getByRole("heading", { level: 1 }).textContent({ timeout: 60_000 })).toBe(
      `Task ${handle.taskId}`,
    );
    // The card polls its task (task_card_refresh) to the end, its proof and receipt shown.
    await expect.poll(() => card.getByTestId("status").textContent(), { timeout: 60_000 }).toBe("Completed");
    await expect.poll(() => card.locator("img[src^='data:image/png;base64,']").count()).toBe(1);
    expect(await card.getByTestId("receipt").textContent()).toBe(
      "✓ Signature verified against the service's keys",
    );
    // Each status the card saw change was told to the model; the last update repeats the earlier ones.
    const told = await page.evaluate(() => (window as any).mcpHost.context.at(-1));
    expect(told.structuredContent).toMatchObject({
      event: "status_changed",
      task_id: handle.taskId,
      status: "completed",
    });
    expect(told.content[0].text).toContain(`Task ${handle.taskId} is now completed (was `);
    await page.context().close();

    // The completed tasks/get result (the tool result inlined) opens the same finished view.
    const done = (await rpc("tasks/get", { taskId: handle.taskId })).body.result;
    expect(done).toMatchObject({
      status: "completed",
      result: { structuredContent: { task_id: handle.taskId } },
    });
    const again = await openHost(watch, { locale: "fr", theme: "dark", viewport: PHONE });
    await again.evaluate(([r]) => (window as any).mcpHost.showResult("submit_task", r), [done] as const);
    const card2 = again.frameLocator("iframe");
    await expect.poll(() => card2.getByTestId("status").textContent(), { timeout: 60_000 }).toBe("Terminée");
    // Nothing changed while this card watched: the model is told nothing new.
    expect(await again.evaluate(() => (window as any).mcpHost.context.length)).toBe(0);
    expect(watch.problems).toEqual([]);
    await again.context().close();
  }, 180_000);

  it("a counter-offer: Accept asks, then opens the pay page; Refuse asks, then cancels through cancel_task", async () => {
    const offered = async () => {
      const { body } = await submitTask(validTask, keyHeaders(key));
      const id = body.task_id as string;
      const offer = await reviewTask(env.admin, {
        task_id: id,
        action: "counter_offer",
        counter_offer_amount: 520,
        reason: "Longer visit",
      });
      expect(offer.res.status, JSON.stringify(offer.body)).toBe(200);
      return id;
    };
    const taskId = await offered();
    const watch: Watch = { problems: [], requests: [] };
    const page = await openHost(watch, { locale: "en", theme: "light", viewport: PHONE });
    await show(page, "check_task_status", { task_id: taskId });
    const card = page.frameLocator("iframe");
    await expect.poll(() => card.getByTestId("status").textContent()).toBe("Counter-offer");
    expect(await card.getByRole("heading", { name: "Counter-offer" }).isVisible()).toBe(true);
    expect(await card.getByText("$520.00").first().isVisible()).toBe(true);
    expect(await card.getByText("Longer visit").isVisible()).toBe(true);
    await snap(page, "mcp-app-counter-390-en-light.png");

    // Accept: asked first; nothing opens until the person confirms.
    await card.getByTestId("counter-accept").click();
    await expect.poll(() => card.getByText("Accept the counter-offer of $520.00 ?").isVisible()).toBe(true);
    expect(await page.evaluate(() => (window as any).mcpHost.opened.length)).toBe(0);
    await card.getByTestId("counter-accept-confirm").click();
    await expect.poll(() => page.evaluate(() => (window as any).mcpHost.opened.length)).toBe(1);
    expect(await page.evaluate(() => (window as any).mcpHost.opened[0] as string)).toMatch(
      new RegExp(`/pay/#task_id=${taskId}&pay_token=`),
    );

    // Refuse: asked first; cancel_task is called only on confirmation.
    const cancels = () => watch.requests.filter((r) => r.headers["mcp-name"] === "cancel_task").length;
    await card.getByTestId("counter-refuse").click();
    await expect
      .poll(() => card.getByText("Refuse the counter-offer? The task will be cancelled.").isVisible())
      .toBe(true);
    expect(cancels()).toBe(0);
    await card.getByRole("button", { name: "Cancel" }).click();
    expect(await card.getByTestId("counter-refuse-confirm").count()).toBe(0);
    await card.getByTestId("counter-refuse").click();
    await card.getByTestId("counter-refuse-confirm").click();
    await expect.poll(() => card.getByTestId("status").textContent()).toBe("Cancelled");
    expect(cancels()).toBe(1);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  }, 180_000);

  it("a proof photo that fails to load: its hash and a Retry, then the photo", async () => {
    const { taskId } = await paidTask(env.admin, key);
    const proof = pngProof();
    const done = await completeTask(env.admin, {
      task_id: taskId,
      action: "complete",
      operator_notes: "Storefront photographed.",
      proof_files: [proof],
      // SVC-01 requires a visit; the admin key completes without one and says why (decision 45).
      no_visit_reason: "Photo sent by the shop's manager.",
    });
    expect(done.res.status, JSON.stringify(done.body)).toBe(200);
    const watch: Watch = { problems: [], requests: [] };
    const page = await openHost(watch, { locale: "en", theme: "light", viewport: PHONE });
    // The host's resources/read of the proof file fails (a 503 from the service) until released.
    let failing = true;
    await page.route(
      (url) => url.pathname === "/api/mcp",
      async (route) => {
        const body = route.request().postData() ?? "";
        if (failing && body.includes('"resources/read"') && body.includes("/proof/")) {
          await route.fulfill({ status: 503, contentType: "application/json", body: "{}" });
          return;
        }
        await route.fallback();
      },
    );
    await show(page, "check_task_status", { task_id: taskId });
    const card = page.frameLocator("iframe");
    await expect.poll(() => card.getByTestId("status").textContent()).toBe("Completed");
    await expect.poll(() => card.getByText("Could not load this file.").isVisible()).toBe(true);
    expect(await card.getByText(/^SHA-256 [0-9a-f]{64}$/).count()).toBe(1);
    expect(await card.locator("img[src^='data:']").count()).toBe(0);
    // The failed photo keeps the figure's box: no broken layout.
    const box = await card.locator(".photo .broken").boundingBox();
    expect(box!.height).toBeGreaterThanOrEqual(100);
    expect(box!.width).toBeGreaterThanOrEqual(100);
    failing = false;
    await card.getByRole("button", { name: "Retry" }).click();
    await expect.poll(() => card.locator("img[src^='data:image/png;base64,']").count()).toBe(1);
    expect(await card.getByText("Could not load this file.").count()).toBe(0);
    await page.context().close();
  }, 180_000);

  /** Every screenshot combination: 390 and 1280 px, English and French, light and dark. */
  const MATRIX = (["en", "fr"] as const).flatMap((locale) =>
    (["light", "dark"] as const).flatMap((theme) =>
      ([PHONE, DESKTOP] as const).map((viewport) => ({ locale, theme, viewport })),
    ),
  );
  const shot = (view: string, m: (typeof MATRIX)[number]) =>
    `mcp-app-${view}-${m.viewport.width}-${m.locale}-${m.theme}.png`;

  // Eight pages each: 480 s on a loaded machine (a guard against a hang, not a speed claim).
  it("an unknown task: the error view in words, in both languages and themes", async () => {
    const watch: Watch = { problems: [], requests: [] };
    for (const m of MATRIX) {
      const page = await openHost(watch, m);
      await show(page, "check_task_status", { task_id: "TASK-20260101-ZZZZ" });
      const card = page.frameLocator("iframe");
      await expect.poll(() => card.getByRole("alert").textContent()).toMatch(/^NOT_FOUND — /);
      expect(await card.getByRole("heading", { level: 1 }).textContent()).toBe(
        m.locale === "fr" ? "Un problème est survenu" : "Something went wrong",
      );
      // What to do next, in the host's language.
      expect(
        await card
          .getByText(m.locale === "fr" ? /^Vérifiez l'identifiant\./ : /^Check the task id\./)
          .isVisible(),
      ).toBe(true);
      await snap(page, shot("error", m));
      await page.context().close();
    }
    expect(watch.problems).toEqual([]);
  }, 480_000);

  it("the estimate view in both languages, themes and widths", async () => {
    const watch: Watch = { problems: [], requests: [] };
    for (const m of MATRIX) {
      const page = await openHost(watch, m);
      await show(page, "get_estimate", { hours: 2, location: "Laval", urgency: "urgent" });
      const card = page.frameLocator("iframe");
      await expect.poll(() => card.getByTestId("total").textContent()).toMatch(/\d/);
      expect(await card.getByRole("heading", { level: 1 }).textContent()).toBe(
        m.locale === "fr" ? "Estimation" : "Estimate",
      );
      await snap(page, shot("estimate", m));
      await page.context().close();
    }
    expect(watch.problems).toEqual([]);
  }, 480_000);
});
