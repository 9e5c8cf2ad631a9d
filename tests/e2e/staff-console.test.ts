/**
 * Staff roles in the operator console (issue 26 items 1 and 3), in Chromium: a reviewer signs in
 * and approves a task (the navigation and actions the role lacks are hidden; a page it may not
 * use sends it to one it can, issue 44 item 2); a field person invited by e-mail lands on the field
 * app, enrols there and is signed in; a field person opening the console is sent to the field app; a finance person settles a refund; the task page shows
 * who did each step (staff, admin key, requester); an owner invites a person from #/staff, who
 * accepts the invitation in the page, enrols an authenticator (a code computed with otplib from
 * the secret the page shows) and lands signed in; the owner then suspends them.
 */

import { eq } from "drizzle-orm";
import { generate } from "otplib";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { emails } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { createStaff, invitationCodeFor } from "../helpers/staff.js";
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

warnIfNoChromium("tests/e2e/staff-console.test.ts");

// Timeouts: each test drives Chromium (another process) through pages and API round trips, up to
// ~10 s on an idle machine; 180 s a test (30 s a page wait, 20 s an expect.poll: browser.ts)
// leaves room for a loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("staff in the operator console", () => {
  useTestDatabase();

  const env = useBrowserHost("ptes-staff-e2e-");
  const { api } = env;
  let agent: string;
  const watch: Watch = { problems: [], requests: [] };

  beforeAll(async () => {
    agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
  });

  async function submit(description: string) {
    const res = await api("POST", "/api/submit-task", agent, {
      ...validTask,
      lang: "en",
      task_description: description,
    });
    expect(res.status).toBe(201);
    return res.body.task_id as string;
  }

  async function newPage(): Promise<Page> {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 1024, height: 900 },
      locale: "en-CA",
    });
    return context.newPage();
  }

  const navLinks = (page: Page) => page.locator("#nav li:not([hidden]) a").allTextContents();
  const actorLines = (page: Page) => page.locator("section[aria-labelledby=sec-actors] li").allTextContents();

  it("a reviewer approves a task; what the role lacks is hidden, or refused naming the permission", async () => {
    const id = await submit("Photograph the posted building permit.");
    const reviewer = await createStaff("reviewer", "Rita Reviewer");
    const page = await newPage();
    await signInStaff(page, env.host.url, reviewer);
    await page.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    expect(await page.locator("#whoami").textContent()).toBe("Rita Reviewer · reviewer");
    expect(await navLinks(page)).toEqual(["Queue", "Tasks", "Refunds", "Disputes"]);

    await page.getByRole("link", { name: id }).click();
    await page.getByRole("heading", { level: 1, name: `Task ${id}`, exact: true }).waitFor();
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Task approved.");
    await page.locator(".badge", { hasText: "accepted, awaiting payment" }).first().waitFor();
    // Recording a payment needs payments.record: no form, a sentence instead.
    expect(await page.getByRole("button", { name: "Record payment" }).count()).toBe(0);
    expect(await page.locator("#sec-actions").locator("..").textContent()).toContain(
      "Your role cannot act on this task in its current status.",
    );
    await expect
      .poll(() => actorLines(page))
      .toEqual([expect.stringMatching(/^task\.approve · reviewer Rita Reviewer /)]);
    await page.evaluate(() => document.getElementById("sec-history")?.scrollIntoView());
    await shot(page, env.shots, "operator-task-actors.png");

    // A section the role may not use: sent to the first one it can (issue 44 item 2), no error.
    await page.goto(`${env.host.url}/operator/#/payments`);
    await page.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/queue");
    expect(await page.locator("main [role=alert]").count()).toBe(0);
    // The analytics page too: back to the console.
    await page.goto(`${env.host.url}/operator/analytics`);
    await page.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/operator/");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.context().close();
  }, 180_000);

  it("a finance person settles a refund; the task page shows who did each step", async () => {
    const id = await submit("Attend the auction and bid on lot 7.");
    expect(
      (await api("POST", "/api/task-review", env.admin, { task_id: id, action: "approve" })).status,
    ).toBe(200);
    expect((await api("POST", "/api/task-payment", env.admin, { task_id: id, note: "cash" })).status).toBe(
      200,
    );
    expect((await api("DELETE", `/api/submit-task?task_id=${id}`, agent)).body.refund_status).toBe("pending");
    const finance = await createStaff("finance", "Fanny Finance");
    const page = await newPage();
    await signInStaff(page, env.host.url, finance);
    await page.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    expect(await navLinks(page)).toEqual(["Queue", "Tasks", "Payments", "Refunds", "Disputes"]);
    await page.getByRole("link", { name: "Refunds", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Refund requests", exact: true }).waitFor();
    await page.getByRole("link", { name: id }).click();
    await page.getByRole("heading", { level: 1, name: `Task ${id}`, exact: true }).waitFor();
    await page.getByLabel("Note to the requester (optional)").fill("Refunded by bank transfer.");
    await page.getByRole("button", { name: "Mark refunded" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Refund recorded.");
    expect((await api("GET", `/api/submit-task?task_id=${id}`, env.admin)).body.refund_status).toBe(
      "refunded",
    );
    await expect.poll(() => actorLines(page)).toHaveLength(4);
    const lines = await actorLines(page);
    expect(lines[0]).toMatch(/^task\.approve · API key key_\w+ /);
    expect(lines[1]).toMatch(/^task\.pay · API key key_\w+ /);
    expect(lines[2]).toMatch(/^task\.cancel · requester /);
    expect(lines[3]).toMatch(/^refund\.settle · finance Fanny Finance /);
    await page.context().close();
  }, 180_000);

  it("a dispatcher assigns a paid task to a field person; the task page shows the assignment", async () => {
    const id = await submit("Inspect the loading dock.");
    expect(
      (await api("POST", "/api/task-review", env.admin, { task_id: id, action: "approve" })).status,
    ).toBe(200);
    expect((await api("POST", "/api/task-payment", env.admin, { task_id: id, note: "cash" })).status).toBe(
      200,
    );
    await createStaff("field", "Felix Field");
    const dispatcher = await createStaff("dispatcher", "Dora Dispatcher");
    const page = await newPage();
    await signInStaff(page, env.host.url, dispatcher);
    await page.goto(`${env.host.url}/operator/#/task/${encodeURIComponent(id)}`);
    await page.getByRole("heading", { level: 1, name: `Task ${id}`, exact: true }).waitFor();
    const select = page.getByLabel("Field person");
    await expect.poll(() => select.locator("option").allTextContents()).toContain("Felix Field");
    await select.selectOption({ label: "Felix Field" });
    await page.getByRole("button", { name: "Assign", exact: true }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Assignment saved.");
    await expect
      .poll(() => page.locator("section[aria-labelledby=sec-field]").textContent())
      .toContain("Felix Field");
    const status = await api("GET", `/api/submit-task?task_id=${id}`, agent);
    expect(status.body.assignment.operator_display_name).toBe("Felix Field");
    await expect
      .poll(() => actorLines(page))
      .toContainEqual(expect.stringMatching(/^task\.assign · dispatcher Dora Dispatcher /));

    // The Field section on a phone, in French, and on a desktop, in English: no horizontal scroll.
    const field = page.locator("section[aria-labelledby=sec-field]");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator("#lang-select").selectOption("fr");
    await page.getByLabel("Personne sur le terrain").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await field.scrollIntoViewIfNeeded();
    await shot(page, env.shots, "operator-task-field-fr-390.png");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator("#lang-select").selectOption("en");
    await page.getByLabel("Field person").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    await field.scrollIntoViewIfNeeded();
    await shot(page, env.shots, "operator-task-field-en-1280.png");
    await page.context().close();
  }, 180_000);

  it("an owner invites a person, who enrols in the page and lands signed in; the owner suspends them", async () => {
    const owner = await createStaff("owner", "Olga Owner");
    const ownerPage = await newPage();
    await signInStaff(ownerPage, env.host.url, owner);
    await ownerPage.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    await ownerPage.getByRole("link", { name: "Staff", exact: true }).click();
    await ownerPage.getByRole("heading", { level: 1, name: "Staff", exact: true }).waitFor();
    const email = `dina.${Date.now()}@staff.example.com`;
    await ownerPage.getByLabel("E-mail").fill(email);
    await ownerPage.getByLabel("Display name").fill("Dina");
    await ownerPage.getByLabel("Role", { exact: true }).selectOption("dispatcher");
    await ownerPage.getByRole("button", { name: "Send the invitation" }).click();
    await expect.poll(() => ownerPage.locator("#status").textContent()).toBe("Invitation sent.");
    const row = ownerPage.locator("tr", { hasText: email });
    await expect.poll(() => row.textContent()).toContain("invited");
    await shot(ownerPage, env.shots, "operator-staff.png", true);

    // The invitee opens the e-mailed link.
    const code = await invitationCodeFor(email);
    const page = await newPage();
    await page.goto(`${env.host.url}/operator/#/accept?code=${code}`);
    await page.getByRole("heading", { level: 1, name: "Join the operator console" }).waitFor();
    await page.getByLabel("Display name").fill("Dina D.");
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByRole("button", { name: "Continue" }).click();
    await page
      .getByRole("heading", { level: 1, name: "Add the account to your authenticator app" })
      .waitFor();
    const secret = await page.getByLabel("Secret key").inputValue();
    expect(await page.getByLabel("otpauth link").inputValue()).toMatch(/^otpauth:\/\/totp\/.+secret=/);
    await shot(page, env.shots, "operator-enrol.png");
    await page.getByLabel("Authenticator code").fill(await generate({ secret }));
    await page.getByRole("button", { name: "Confirm and sign in" }).click();
    // The recovery codes, shown once, then on (a passkey is offered, not required).
    await page.getByRole("heading", { level: 1, name: "Save your recovery codes" }).waitFor();
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
    expect(await page.locator("#whoami").textContent()).toBe("Dina D. · dispatcher");
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBeLessThanOrEqual(1);
    expect(await page.evaluate(() => document.cookie)).toBe("");

    // The owner sees the account active, then suspends it: the invitee's next page is the form.
    await ownerPage.getByRole("button", { name: "Refresh" }).click();
    await expect.poll(() => row.textContent()).toContain("active");
    ownerPage.once("dialog", (dialog) => dialog.accept());
    await row.getByRole("button", { name: "Suspend" }).click();
    await expect.poll(() => ownerPage.locator("#status").textContent()).toBe("Account suspended.");
    await expect.poll(() => row.textContent()).toContain("suspended");
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Operator sign-in", exact: true }).waitFor();
    await ownerPage.context().close();
    await page.context().close();
  }, 180_000);

  it("a field person's invitation links to /field/, which enrols and signs them in; the console sends them there", async () => {
    const email = `felix.${Date.now()}@staff.example.com`;
    const invited = await api("POST", "/api/staff", env.admin, {
      action: "invite",
      email,
      role: "field",
      display_name: "Félix",
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    const db = await getDb();
    const [mail] = await db.select().from(emails).where(eq(emails.toAddress, email));
    const link = /https?:\/\/\S+\/field\/#\/accept\?code=inv_[A-Za-z0-9]{40}/.exec(mail!.textBody)?.[0];
    expect(link, mail!.textBody).toBeDefined();
    expect(mail!.textBody).not.toContain("/operator/");

    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      locale: "en-CA",
    });
    const page = await context.newPage();
    await page.goto(`${env.host.url}${new URL(link!).pathname}${new URL(link!).hash}`);
    await page.getByRole("heading", { level: 1, name: "Join the field team" }).waitFor();
    await page.getByLabel("Display name").fill("Félix T.");
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByRole("button", { name: "Continue" }).click();
    await page
      .getByRole("heading", { level: 1, name: "Add the account to your authenticator app" })
      .waitFor();
    const secret = await page.getByLabel("Secret key").inputValue();
    await shot(page, env.shots, "field-enrol-phone.png");
    await page.getByLabel("Authenticator code").fill(await generate({ secret }));
    await page.getByRole("button", { name: "Confirm and sign in" }).click();
    // The recovery codes, shown once, then on (a passkey is offered, not required).
    await page.getByRole("heading", { level: 1, name: "Save your recovery codes" }).waitFor();
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/tasks");

    // The same person opening the console (a bookmark, an old link) is sent to the field app.
    await page.goto(`${env.host.url}/operator/#/queue`);
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/field/");
    await page.goto(`${env.host.url}/operator/analytics`);
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
    expect(await page.getByText("FORBIDDEN").count()).toBe(0);
    await context.close();
  }, 180_000);

  it("loaded every page without console errors or CSP violations", () => {
    expect(watch.problems).toEqual([]);
  });
});
