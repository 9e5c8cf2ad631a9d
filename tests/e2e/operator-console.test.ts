/**
 * The operator console (public/operator/) in a real browser: Debian's Chromium driven by
 * playwright-core against the local host (the same server as `npm start`, with vercel.json's
 * Content-Security-Policy) on a test database. An agent submits tasks over the API; the
 * owner signs in with a staff account (e-mail, password, TOTP code), works the review queue,
 * approves, records a payment, dispatches, marks on site and completes with a photo picked
 * through the camera input; the API then shows the task completed with that photo, and the task
 * page who did each step. Also: wrong credentials, nothing kept in web storage, the CSRF token on
 * every POST, an API error shown from the envelope, the other sections, French, sign-out, and a
 * phone-sized viewport. Other roles, the invitation and staff management:
 * tests/e2e/staff-console.test.ts.
 *
 * Skipped (with a message) when no Chromium binary exists; `.ci/run` installs it.
 * `UPDATE_SCREENSHOTS=1` writes the screenshots to docs/screenshots/ (else to a temp dir).
 */

import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { crc32, sampleProofPng } from "../../lib/tasks/sample-proof.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { createStaff, type TestStaff } from "../helpers/staff.js";
import { validTask } from "../helpers/tasks.js";
import {
  CHROMIUM,
  newWatchedContext,
  shot,
  signInStaff,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

/** An RGB PNG of random noise (stored, not compressed): a stand-in for a large camera photo. */
function noisePng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(4 + body.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 4 + body.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const stride = 1 + width * 3;
  const raw = randomBytes(stride * height);
  for (let y = 0; y < height; y++) raw[y * stride] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 0 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

warnIfNoChromium("tests/e2e/operator-console.test.ts");

/** The language preference's localStorage key (public/shared/i18n.js): the only entry allowed. */
const LANG_KEY = "ui.lang";

// Timeouts: each test drives Chromium (another process) through pages and API round trips, up to
// ~10 s on an idle machine; 180 s a test (30 s a page wait, 20 s an expect.poll: browser.ts)
// leaves room for a loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("operator console in Chromium", () => {
  useTestDatabase();

  const env = useBrowserHost("ptes-e2e-", { idempotencyKeys: false });
  const { api } = env;
  let agent: string;
  const watch: Watch = { problems: [], requests: [] };

  beforeAll(async () => {
    agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
  });

  async function submit(extra: Record<string, unknown>) {
    const res = await api("POST", "/api/submit-task", agent, { ...validTask, lang: "en", ...extra });
    expect(res.status).toBe(201);
    return res.body.task_id as string;
  }

  /** A browser context that records console errors (CSP violations land there) and requests. */
  function newContext(options: Parameters<Browser["newContext"]>[0]): Promise<BrowserContext> {
    return newWatchedContext(env.browser, watch, options);
  }

  /** Signs a new owner in (each test its own: a TOTP step is accepted once). */
  async function signIn(page: Page, name = "Olive Owner"): Promise<TestStaff> {
    const owner = await createStaff("owner", name);
    await signInStaff(page, env.host.url, owner);
    return owner;
  }

  /**
   * Web storage of the page and the cookies a script sees: no credential ever (the session rides
   * in the HttpOnly cookie); localStorage holds at most the chosen language.
   */
  function storage(page: Page) {
    return page.evaluate(
      (lang) => ({
        session: sessionStorage.length,
        local: Object.keys(localStorage).filter((k) => k !== lang).length,
        cookie: document.cookie,
      }),
      LANG_KEY,
    );
  }

  it("takes a task from the queue to completed with a photo", async () => {
    const standard = await submit({
      task_description: "Photograph the storefront and the posted opening hours.",
    });
    const urgent = await submit({
      urgency: "urgent",
      location_address: "120 Boulevard des Seigneurs, Terrebonne, QC",
      task_description: "Check that the shop on the corner is open and photograph its front window.",
      special_instructions: "Ring the bell at the back door.",
    });

    // The page is served with vercel.json's strict CSP (no inline script or style, no eval).
    const shell = await fetch(`${env.host.url}/operator/`);
    expect(shell.headers.get("content-security-policy")).toMatch(/script-src 'self';.*style-src 'self';/);
    expect(await shell.text()).not.toMatch(/<script>|<style|style="/);

    const context = await newContext({ viewport: { width: 1024, height: 900 }, locale: "en-CA" });
    const page = await context.newPage();

    // Wrong credentials are refused with a message; nothing is stored.
    const owner = await createStaff("owner", "Olive Owner");
    await signInStaff(page, env.host.url, { ...owner, password: "not the password" }, "/operator/", "000000");
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toContain("The e-mail, password or code is wrong");
    expect(await storage(page)).toEqual({ session: 0, local: 0, cookie: "" });
    const form = page.locator("form.auth-form");
    expect(await form.getByLabel("E-mail").getAttribute("autocomplete")).toBe("username");
    expect(await form.getByLabel("Password").getAttribute("autocomplete")).toBe("current-password");
    const codeInput = form.getByLabel("Authenticator code");
    expect(await codeInput.getAttribute("autocomplete")).toBe("one-time-code");
    expect(await codeInput.getAttribute("inputmode")).toBe("numeric");
    await shot(page, env.shots, "operator-sign-in.png");

    // The owner signs in: the review queue, closest review deadline (the urgent task) first.
    await signInStaff(page, env.host.url, owner);
    await page.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    expect(await page.locator("#whoami").textContent()).toBe("Olive Owner · owner");
    // The session is in the HttpOnly cookie: no script sees it, nothing is in web storage.
    expect(await storage(page)).toEqual({ session: 0, local: 0, cookie: "" });
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([["staff_session", true, "Strict"]]);
    const ids = await page.locator(".card-title a").allTextContents();
    expect(ids).toEqual([urgent, standard]);
    const firstSla = page.locator(".card").first().locator(".sla");
    expect(await firstSla.textContent()).toMatch(/Review SLA \d+ (h|min)/);
    expect(await firstSla.locator("time").getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT/);
    await shot(page, env.shots, "operator-queue.png");

    // The task page: what the agent sent, the estimate breakdown, the map link.
    await page.getByRole("link", { name: urgent }).click();
    await page.getByRole("heading", { level: 1, name: `Task ${urgent}`, exact: true }).waitFor();
    expect(page.url()).toContain(`#/task/${urgent}`);
    await expect.poll(() => page.getByText("Ring the bell at the back door.").count()).toBe(1);
    expect(await page.getByText(validTask.requester_contact).count()).toBeGreaterThan(0);
    const map = page.getByRole("link", { name: "Open the address in OpenStreetMap (new tab)" }).first();
    expect(await map.getAttribute("href")).toBe(
      `https://www.openstreetmap.org/search?query=${encodeURIComponent("120 Boulevard des Seigneurs, Terrebonne, QC")}`,
    );
    expect(await map.getAttribute("rel")).toBe("noopener noreferrer");
    const breakdown = page.locator("table.breakdown");
    expect(await breakdown.getByRole("rowheader", { name: "Base fee" }).count()).toBe(1);
    expect(await breakdown.getByRole("rowheader", { name: "Urgency multiplier" }).count()).toBe(1);
    expect(await breakdown.locator("tfoot td").textContent()).toMatch(/\$\d/);
    await shot(page, env.shots, "operator-task.png");

    // Approve at a price.
    await page.getByLabel("Price (CAD, optional)").fill("480");
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Task approved.");
    await page.locator(".badge", { hasText: "accepted, awaiting payment" }).first().waitFor();
    expect((await api("GET", `/api/submit-task?task_id=${urgent}`, env.admin)).body.payment.amount_cad).toBe(
      480,
    );

    // Payment received out of band, then dispatch and on site.
    await page.getByLabel("Note (optional)").fill("Paid by bank transfer");
    await page.getByRole("button", { name: "Record payment" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Payment recorded.");
    await page.getByRole("button", { name: "Dispatch" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Task dispatched.");
    await page.getByRole("button", { name: "On site" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Operator marked on site.");

    // Complete with a photo from the camera input.
    const camera = page.getByLabel("Take or choose photos");
    expect(await camera.getAttribute("capture")).toBe("environment");
    expect(await camera.getAttribute("accept")).toBe("image/*");
    const png = sampleProofPng("storefront").bytes;
    const photo = path.join(env.tmp, "storefront.png");
    writeFileSync(photo, png);
    await camera.setInputFiles(photo);
    await page.locator(".proof-item", { hasText: "storefront.png" }).waitFor();
    await page.getByLabel("Operator notes (optional)").fill("Shop open; front window photographed.");
    // SVC-01 requires a site visit and nobody checked in from the field app: the console asks why.
    await page
      .getByLabel("Why complete without a site visit?")
      .fill("Photos taken by the building manager on our behalf.");
    await page.getByRole("button", { name: "Complete task" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Task completed.");
    await page.getByRole("img", { name: "storefront.png" }).waitFor();
    await page.locator("#sec-result").scrollIntoViewIfNeeded();
    await page.evaluate(() => document.getElementById("sec-payment")?.scrollIntoView());
    await shot(page, env.shots, "operator-complete.png");

    const done = (await api("GET", `/api/submit-task?task_id=${urgent}`, agent)).body;
    expect(done.status).toBe("completed");
    expect(done.operator_notes).toBe("Shop open; front window photographed.");
    expect(done.visit_rule).toEqual({
      rule: "required",
      outcome: "no_visit",
      flags: ["NO_SITE_VISIT"],
      no_visit_reason: "Photos taken by the building manager on our behalf.",
    });
    expect(done.proof_files_data).toEqual([
      { filename: "storefront.png", type: "image/png", content: png.toString("base64") },
    ]);
    expect(done.history.map((h: { status: string }) => h.status)).toEqual([
      "received",
      "accepted_pending_payment",
      "paid",
      "dispatched",
      "on_site",
      "completed",
    ]);

    // Who did each step: the owner's name and role on every transition.
    const actors = page.locator("section[aria-labelledby=sec-actors] li");
    await expect.poll(() => actors.allTextContents()).toHaveLength(5);
    for (const line of await actors.allTextContents()) expect(line).toContain("owner Olive Owner");

    // Every POST carried the session's CSRF token and an Idempotency-Key, never a key; no URL
    // ever held a credential.
    const posts = watch.requests.filter(
      (r) => r.method === "POST" && new URL(r.url).pathname !== "/api/staff-auth",
    );
    const urls = watch.requests.map((r) => r.url);
    expect(posts.map((p) => new URL(p.url).pathname)).toEqual([
      "/api/task-review",
      "/api/task-payment",
      "/api/task-complete",
      "/api/task-complete",
      "/api/task-complete",
    ]);
    const csrf = posts[0]!.headers["x-csrf-token"];
    expect(csrf).toMatch(/^[\w-]{43}$/);
    for (const post of posts) {
      expect(post.headers["x-api-key"]).toBeUndefined();
      expect(post.headers["x-csrf-token"]).toBe(csrf);
      expect(post.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{32,36}$/);
    }
    expect(new Set(posts.map((p) => p.headers["idempotency-key"])).size).toBe(posts.length);
    expect(urls.filter((u) => u.includes(owner.password) || u.includes("sts_"))).toEqual([]);
    expect(await storage(page)).toEqual({ session: 0, local: 0, cookie: "" });
    await context.close();
  }, 180_000);

  it("shows API errors from the envelope, the other sections, French, and signs out", async () => {
    const id = await submit({ task_description: "Inspect the parking lot lighting after dark." });
    const context = await newContext({ viewport: { width: 1024, height: 800 }, locale: "en-CA" });
    const page = await context.newPage();
    await signIn(page, "Oscar Owner");
    await page.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    await page.getByRole("link", { name: id }).click();
    await page.getByRole("heading", { level: 1, name: `Task ${id}`, exact: true }).waitFor();

    // Rejected elsewhere meanwhile: the approval is a 409 CONFLICT, shown with its code and request id.
    expect(
      (await api("POST", "/api/task-review", env.admin, { task_id: id, action: "reject", reason: "dup" }))
        .status,
    ).toBe(200);
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    const alert = page.locator("form.approve [role=alert]");
    await expect.poll(() => alert.textContent()).toMatch(/Error CONFLICT: .+request req_/);
    expect(await page.getByRole("button", { name: "Approve", exact: true }).isEnabled()).toBe(true);

    // Counter-offer with amount and reason.
    const offered = await submit({
      task_description: "Pick up a used bicycle listed online and inspect it.",
    });
    await page.goto(`${env.host.url}/operator/#/task/${offered}`);
    await page.getByRole("heading", { level: 1, name: `Task ${offered}`, exact: true }).waitFor();
    await page.getByLabel("Amount (CAD)").fill("612.5");
    await page.getByLabel("Reason (optional, shown to the requester)").fill("Two hours on site are needed.");
    await page.getByRole("button", { name: "Counter-offer", exact: true }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Counter-offer sent.");
    const countered = (await api("GET", `/api/submit-task?task_id=${offered}`, env.admin)).body;
    expect(countered).toMatchObject({ status: "counter_offered", counter_offer_amount: 612.5 });

    // Fail a dispatched task, after confirming.
    const failing = await submit({ task_description: "Photograph the building entrance." });
    await api("POST", "/api/task-review", env.admin, { task_id: failing, action: "approve" });
    await api("POST", "/api/task-payment", env.admin, { task_id: failing, note: "cash" });
    await api("POST", "/api/task-complete", env.admin, { task_id: failing, action: "dispatch" });
    await page.goto(`${env.host.url}/operator/#/task/${failing}`);
    await page.getByRole("heading", { level: 1, name: `Task ${failing}`, exact: true }).waitFor();
    await page.getByLabel("Reason", { exact: true }).fill("Building closed for renovation.");
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: "Mark as failed" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Task marked as failed.");
    expect((await api("GET", `/api/submit-task?task_id=${failing}`, env.admin)).body).toMatchObject({
      status: "failed",
      failure_reason: "Building closed for renovation.",
    });

    // Lists by status, unmatched payments, refunds and dead letters.
    await page.getByRole("link", { name: "Tasks", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Tasks", exact: true }).waitFor();
    await page.getByLabel("Status").selectOption("rejected");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => page.locator(".card-title a").allTextContents()).toEqual([id]);
    expect(page.url()).toContain("#/tasks?status=rejected");
    await page.getByRole("link", { name: "Payments", exact: true }).click();
    await expect.poll(() => page.locator("main").textContent()).toContain("No unmatched payment.");
    // A task cancelled after payment is a refund request; one cancelled before payment is not.
    const refund = await submit({ task_description: "Attend the auction and bid on lot 12." });
    await api("POST", "/api/task-review", env.admin, { task_id: refund, action: "approve" });
    await api("POST", "/api/task-payment", env.admin, { task_id: refund });
    expect((await api("DELETE", `/api/submit-task?task_id=${refund}`, agent)).body.refund_status).toBe(
      "pending",
    );
    const free = await submit({ task_description: "Cancelled before payment." });
    expect((await api("DELETE", `/api/submit-task?task_id=${free}`, agent)).body.status).toBe("cancelled");
    await page.getByRole("link", { name: "Refunds", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Refund requests", exact: true }).waitFor();
    expect(await page.locator(".card-title a").allTextContents()).toEqual([refund]);
    // Settle it on the task page: the amount requested is filled in; the USDC transaction is recorded.
    await page.locator(".card-title a").first().click();
    await page.getByRole("heading", { level: 1, name: `Task ${refund}`, exact: true }).waitFor();
    const requested = (await api("GET", `/api/submit-task?task_id=${refund}`, env.admin)).body.refund;
    expect(requested).toMatchObject({ status: "pending" });
    expect(Number(await page.getByLabel("Amount refunded (CAD)").inputValue())).toBe(requested.amount_cad);
    const refundTx = `0x${"cd".repeat(32)}`;
    await page.getByLabel("USDC refund transaction (0x…, optional)").fill(refundTx);
    await page.getByLabel("Note to the requester (optional)").fill("Refunded to the paying wallet.");
    await page.getByRole("button", { name: "Mark refunded" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Refund recorded.");
    expect((await api("GET", `/api/submit-task?task_id=${refund}`, env.admin)).body).toMatchObject({
      refund_status: "refunded",
      refund: { status: "refunded", amount_cad: requested.amount_cad, tx_hash: refundTx },
    });
    await expect.poll(() => page.locator("main").textContent()).toContain(`refunded · `);
    expect(await page.getByRole("button", { name: "Mark refunded" }).count()).toBe(0);
    await page.getByRole("link", { name: "Refunds", exact: true }).click();
    await expect.poll(() => page.locator("main").textContent()).toContain("No refund request is pending.");
    await page.getByRole("link", { name: "Dead letters", exact: true }).click();
    await page.getByLabel("Webhook id").fill("wh_doesnotexist");
    await page.getByRole("button", { name: "Show dead letters" }).click();
    await expect.poll(() => page.locator("main [role=alert]").textContent()).toContain("Error NOT_FOUND");

    // French, remembered across reloads; the session survives a reload (the cookie).
    await page.getByLabel("Language").selectOption("fr");
    await page.getByRole("heading", { level: 1, name: "Webhooks en échec", exact: true }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("fr");
    await page.getByRole("link", { name: "File", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "File de révision", exact: true }).waitFor();
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "File de révision", exact: true }).waitFor();

    await page.getByRole("button", { name: "Se déconnecter" }).click();
    await page.getByRole("heading", { level: 1, name: "Connexion opérateur", exact: true }).waitFor();
    expect(await storage(page)).toEqual({ session: 0, local: 0, cookie: "" });
    // Signed out on the server too: a reload shows the form again.
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Connexion opérateur", exact: true }).waitFor();
    expect(await page.locator("#nav").isHidden()).toBe(true);
    await context.close();
  }, 180_000);

  it("scales a large camera photo down before uploading it", async () => {
    const id = await submit({ task_description: "Photograph the loading dock." });
    await api("POST", "/api/task-review", env.admin, { task_id: id, action: "approve" });
    await api("POST", "/api/task-payment", env.admin, { task_id: id });
    const big = noisePng(2400, 600); // ~4.3 MB, over the 3 MiB per-file limit of the API
    expect(big.length).toBeGreaterThan(3 * 1024 * 1024);
    const file = path.join(env.tmp, "IMG_0001.png");
    writeFileSync(file, big);

    const context = await newContext({ viewport: { width: 1024, height: 900 }, locale: "en-CA" });
    const page = await context.newPage();
    await signIn(page, "Opal Owner");
    await page.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    await page.goto(`${env.host.url}/operator/#/task/${id}`);
    await page.getByRole("heading", { level: 1, name: `Task ${id}`, exact: true }).waitFor();
    await page.getByLabel("Take or choose photos").setInputFiles(file);
    await page.locator(".proof-item", { hasText: "IMG_0001.jpg" }).waitFor();
    await page.getByLabel("Why complete without a site visit?").fill("Photo sent by the site's manager.");
    await page.getByRole("button", { name: "Complete task" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Task completed.");
    await context.close();

    const [proof] = (await api("GET", `/api/submit-task?task_id=${id}`, env.admin)).body.proof_files_data;
    expect(proof).toMatchObject({ filename: "IMG_0001.jpg", type: "image/jpeg" });
    const jpeg = Buffer.from(proof.content, "base64");
    expect(jpeg.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    expect(jpeg.length).toBeLessThan(3 * 1024 * 1024);
    // 2048 px on the long edge: the SOF0 frame header holds height and width.
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    expect([jpeg.readUInt16BE(sof + 5), jpeg.readUInt16BE(sof + 7)]).toEqual([512, 2048]);
  }, 180_000);

  it("fits a phone screen, in the browser's language", async () => {
    await submit({ urgency: "urgent", task_description: "Courier: deliver the signed lease to the notary." });
    // A real submission without a key: its card says so (issue 25 item 8).
    const keyless = await api("POST", "/api/submit-task", undefined, {
      ...validTask,
      lang: "en",
      task_description: "Photograph the mailbox bank in the lobby.",
    });
    expect(keyless.status).toBe(201);
    const context = await newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      locale: "fr-CA",
    });
    const page = await context.newPage();
    await signIn(page, "Orla Owner");
    await page.getByRole("heading", { level: 1, name: "File de révision", exact: true }).waitFor();
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > 391)
        .map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`),
    );
    expect(wide).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // Touch targets: cards, nav links and buttons are at least 44 CSS px tall.
    const card = await page.locator(".card").first().boundingBox();
    expect(card!.height).toBeGreaterThanOrEqual(44);
    for (const box of [
      await page.getByRole("button", { name: "Actualiser" }).boundingBox(),
      await page.getByRole("link", { name: "File", exact: true }).boundingBox(),
    ]) {
      expect(box!.height).toBeGreaterThanOrEqual(44);
    }
    // Focus moves to the view's heading; the next Tab stop is the view's first control.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Actualiser");
    const keylessCard = page.locator(".card").filter({ hasText: keyless.body.task_id });
    expect(await keylessCard.locator(".badge").allTextContents()).toContain("Sans clé d'API");
    await shot(page, env.shots, "operator-queue-phone.png");
    await context.close();
  }, 180_000);

  it("loaded every page without console errors or CSP violations", () => {
    expect(watch.problems).toEqual([]);
  });
});
