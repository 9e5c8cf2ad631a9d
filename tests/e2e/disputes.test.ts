/**
 * Disputes in the browser (issue 27 item 5), Chromium via playwright-core against the local host
 * (vercel.json's CSP): a signed-in client reports a problem on a completed task from the dashboard
 * (reason, details, a photo as evidence); a reviewer sees the console's disputes queue (the
 * requester's side beside the proof files) but no resolution form; a finance person resolves it
 * with a partial refund — a too-large amount first, refused with the maximum — and the client then
 * sees the dispute resolved with its refund. A dispute resolved meanwhile by someone else shows the 409. Skipped (with a message) when no Chromium binary exists;
 * `UPDATE_SCREENSHOTS=1` writes the screenshots to docs/screenshots/.
 */
import { decodeJwt } from "jose";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { openLinkedAccount } from "../accounts/helpers.js";
import { completedTask } from "../disputes/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { createStaff } from "../helpers/staff.js";
import { pngProof } from "../helpers/tasks.js";
import {
  CHROMIUM,
  newWatchedContext,
  shot,
  signInStaff,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

warnIfNoChromium("tests/e2e/disputes.test.ts");

// Timeouts: one flow through three browser contexts (client, reviewer, finance), ~6 s on an
// idle machine; 180 s (30 s a page wait, 20 s an expect.poll: browser.ts) leaves room for a
// loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("disputes in the dashboard and the console", () => {
  useTestDatabase();
  const env = useBrowserHost("ptes-e2e-disputes-");
  const watch: Watch = { problems: [], requests: [] };
  let jwt: string;
  let taskId: string;
  let otherOwner: string;
  let otherTask: string;

  beforeAll(async () => {
    const key = await makeKey(["audit_only", "task_create"], `disputes.${Date.now()}@example.com`);
    ({ jwt } = await openLinkedAccount(key));
    taskId = await completedTask(env.admin, key, 200);
    otherOwner = await makeKey(["audit_only", "task_create"], `other.${Date.now()}@example.com`);
    otherTask = await completedTask(env.admin, otherOwner, 80);
  });

  /** The client dashboard signed in with the account's JWT (as the sign-in form stores it). */
  async function clientPage(): Promise<Page> {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 1024, height: 900 },
      locale: "en-CA",
    });
    const expiresAt = new Date(decodeJwt(jwt).exp! * 1000).toISOString();
    await context.addInitScript(
      (session) => {
        if (location.protocol === "http:") sessionStorage.setItem("client.jwt", JSON.stringify(session));
      },
      { token: jwt, expiresAt },
    );
    return context.newPage();
  }

  async function staffPage(): Promise<Page> {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 1280, height: 900 },
      locale: "en-CA",
    });
    const page = await context.newPage();
    page.on("dialog", (dialog) => dialog.accept());
    return page;
  }

  const toast = (page: Page) => page.locator("#status").textContent();

  it("a client reports a problem; a reviewer reads the queue; finance refunds part; the client sees it", async () => {
    // The client reports a problem on the completed task, with a photo.
    const client = await clientPage();
    await client.goto(`${env.host.url}/client/#/task/${taskId}`);
    await client.getByRole("heading", { level: 3, name: "Report a problem" }).waitFor();
    await client.getByLabel("What went wrong").selectOption("damaged");
    await client
      .getByLabel("Details", { exact: true })
      .fill("The fence photographed is not the one at the address.");
    const photo = pngProof("fence.png");
    await client.locator("input[name=evidence]").setInputFiles({
      name: photo.filename,
      mimeType: photo.type,
      buffer: Buffer.from(photo.content, "base64"),
    });
    await client.getByRole("button", { name: "Report the problem" }).click();
    await expect.poll(() => toast(client)).toBe("Problem reported: a dispute is open.");
    await client.locator("#dispute-heading .badge", { hasText: "dispute open" }).waitFor();
    expect(await client.getByRole("button", { name: "Report the problem" }).count()).toBe(0);
    const opened = watch.requests.find((r) => r.method === "POST" && r.url.endsWith("/api/task-dispute"));
    expect(opened?.headers.authorization).toBe(`Bearer ${jwt}`);
    await client.getByRole("link", { name: "Back to the dashboard" }).click();
    await client.locator("section[aria-labelledby=sec-tasks] .badge", { hasText: "dispute open" }).waitFor();
    await client.goto(`${env.host.url}/client/#/task/${taskId}`);
    await client.locator("#dispute-heading").waitFor();
    await client.evaluate(() => document.getElementById("sec-recourse")?.scrollIntoView());
    await shot(client, env.shots, "client-dispute.png");

    // Another requester's dispute, opened later (second in the queue).
    const other = await env.api("POST", "/api/task-dispute", otherOwner, {
      task_id: otherTask,
      reason: "late",
      details: "Two days late.",
    });
    expect(other.status).toBe(201);
    const otherId = other.body.dispute.dispute_id as string;

    // A reviewer reads the queue (disputes.read) but may not resolve (no disputes.resolve).
    const reviewer = await createStaff("reviewer", "Rita Reviewer");
    const rpage = await staffPage();
    await signInStaff(rpage, env.host.url, reviewer);
    await rpage.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    await rpage.getByRole("link", { name: "Disputes", exact: true }).click();
    await rpage.getByRole("heading", { level: 1, name: "Disputes", exact: true }).waitFor();
    const rcard = rpage.locator("li.dispute").first();
    await rcard.getByRole("link", { name: taskId }).waitFor();
    expect(await rcard.textContent()).toContain("The fence photographed is not the one at the address.");
    expect(await rcard.locator(".evidence").textContent()).toContain("fence.png");
    // The requester's photo is shown beside the operator's proof, read with dispute_id.
    const evidenceImage = rcard.locator(".evidence img");
    await evidenceImage.waitFor();
    expect(await evidenceImage.getAttribute("alt")).toBe("fence.png");
    expect(await evidenceImage.getAttribute("src")).toBe(`data:image/png;base64,${photo.content}`);
    expect(await rcard.locator(".proof-gallery:not(.evidence) img").count()).toBe(1);
    expect(await rcard.getByRole("button", { name: "Resolve" }).count()).toBe(0);
    expect(await rcard.locator(".no-resolve").textContent()).toBe(
      "Your role can read disputes but not resolve them.",
    );
    await rpage.context().close();

    // Finance resolves it: too much first (422 with the maximum), then a partial refund of 50.
    const finance = await createStaff("finance", "Fanny Finance");
    const fpage = await staffPage();
    await signInStaff(fpage, env.host.url, finance, "/operator/#/disputes");
    await fpage.getByRole("heading", { level: 1, name: "Disputes", exact: true }).waitFor();
    expect(await fpage.locator("p.count").textContent()).toBe("2 open dispute(s)");
    // The other dispute is resolved by someone else after the page was read: the form shows the 409.
    expect(
      (
        await env.api("POST", "/api/dispute-resolve", env.admin, {
          dispute_id: otherId,
          resolution: "reject",
          reason: "Delivered on time.",
        })
      ).status,
    ).toBe(200);
    const stale = fpage.locator(`li.dispute[data-dispute="${otherId}"]`);
    await stale.getByLabel("Resolution", { exact: true }).selectOption("reject");
    await stale.getByLabel("Note to the requester").fill("Late indeed.");
    await stale.getByRole("button", { name: "Resolve" }).click();
    await expect.poll(() => stale.locator("[role=alert]").textContent()).toContain("Error CONFLICT");
    expect(await stale.locator("[role=alert]").textContent()).toContain("already resolved");
    const card = fpage.locator("li.dispute").first();
    await card.getByLabel("Resolution", { exact: true }).selectOption("partial_refund");
    await card.getByLabel("Refund amount (CAD, partial refund)").fill("500");
    await card.getByLabel("Note to the requester").fill("Part of the visit was wasted.");
    await shot(fpage, env.shots, "operator-disputes.png", true);
    await card.getByRole("button", { name: "Resolve" }).click();
    const alert = card.locator("[role=alert]");
    await expect.poll(() => alert.textContent()).toContain("Error VALIDATION_ERROR");
    expect(await alert.textContent()).toContain("can still be refunded");
    expect(await alert.textContent()).toMatch(/At most \$?200\.00/);
    await card.getByLabel("Refund amount (CAD, partial refund)").fill("50");
    await card.getByRole("button", { name: "Resolve" }).click();
    await expect.poll(() => toast(fpage)).toMatch(/^Dispute dsp_\S+ resolved\.$/);
    const resolved = fpage.locator("li.dispute").first();
    await resolved.locator(".badge", { hasText: "resolved" }).waitFor();
    expect(await resolved.textContent()).toContain("partial refund");
    expect(await resolved.textContent()).toContain("50.00");
    const posts = watch.requests.filter((r) => r.method === "POST" && r.url.endsWith("/api/dispute-resolve"));
    expect(posts).toHaveLength(3);
    for (const post of posts) {
      expect(post.headers["idempotency-key"]).toBeTruthy();
      expect(post.headers["x-csrf-token"]).toBeTruthy();
    }
    // Each body differs: a key each.
    expect(new Set(posts.map((p) => p.headers["idempotency-key"])).size).toBe(3);
    await fpage.context().close();

    // The client sees the dispute resolved with its refund.
    await client.reload();
    await client.locator("#dispute-heading .badge", { hasText: "dispute resolved" }).waitFor();
    const recourse = await client.locator("#sec-recourse").locator("..").textContent();
    expect(recourse).toContain("partial refund");
    expect(recourse).toContain("50.00");
    expect(recourse).toContain("Part of the visit was wasted.");
    // Resolved, the dispute window still open: another problem may be reported.
    await client.getByRole("heading", { level: 3, name: "Report another problem" }).waitFor();
    await client.evaluate(() => document.getElementById("sec-recourse")?.scrollIntoView());
    await shot(client, env.shots, "client-dispute-resolved.png");
    await client.context().close();

    expect(watch.problems).toEqual([]);
  }, 180_000);
});
