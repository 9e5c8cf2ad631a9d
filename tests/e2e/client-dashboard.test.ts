/**
 * The client dashboard (public/client/) in a real browser: Debian's Chromium driven by
 * playwright-core against the local host (vercel.json's Content-Security-Policy applied) on a
 * test database. A client registers through the form (the server has no TURNSTILE_SECRET_KEY,
 * so the page sends its placeholder token), verifies the e-mail with the code read from the
 * queued `emails` row, signs in; an admin deposits funds over the API; on the API keys page the
 * client links a key by pasting it, unlinks it and creates the key its agent uses (shown once); a
 * task submitted with that key is approved (charged to the account), dispatched and completed
 * with a proof photo over the API; the client sees balance, spending level, transactions, the
 * task with its proof image, and the invoice; logging out ends the session on the server. Also:
 * the password reset flow, wrong codes and
 * passwords, a duplicate registration, French, a phone viewport, and no console errors.
 *
 * Skipped (with a message) when no Chromium binary exists; `.ci/run` installs it.
 * `UPDATE_SCREENSHOTS=1` writes the screenshots to docs/screenshots/ (else to a temp dir).
 */

import { randomUUID } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { emails } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { pngProof, validTask } from "../helpers/tasks.js";
import {
  CHROMIUM,
  newWatchedContext,
  shot,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

warnIfNoChromium("tests/e2e/client-dashboard.test.ts");

// Timeouts: each test drives Chromium (another process) through pages and API round trips, up to
// ~10 s on an idle machine; 180 s a test (30 s a page wait, 20 s an expect.poll: browser.ts)
// leaves room for a loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("client dashboard in Chromium", () => {
  useTestDatabase();

  const env = useBrowserHost("ptes-e2e-client-");
  const { api } = env;
  const watch: Watch = { problems: [], requests: [] };

  /** The one-time code (`vfy_…` or `rst_…`) of the newest e-mail queued for `to` with `template`. */
  async function codeFromOutbox(to: string, template: string, prefix: string): Promise<string> {
    const db = await getDb();
    const [row] = await db
      .select()
      .from(emails)
      .where(and(eq(emails.toAddress, to), eq(emails.template, template)))
      .orderBy(desc(emails.createdAt))
      .limit(1);
    const code = row?.textBody.match(new RegExp(`${prefix}[A-Za-z0-9]+`))?.[0];
    expect(code, `a ${template} e-mail to ${to}`).toBeTruthy();
    return code!;
  }

  /** The dashboard link of the newest `template` e-mail to `to`, as a path on the test host. */
  async function linkFromOutbox(to: string, template: string): Promise<string> {
    const db = await getDb();
    const [row] = await db
      .select()
      .from(emails)
      .where(and(eq(emails.toAddress, to), eq(emails.template, template)))
      .orderBy(desc(emails.createdAt))
      .limit(1);
    const link = row?.textBody.match(/https?:\/\/\S+\/client\/#\/\S+/)?.[0];
    expect(link, `a dashboard link in the ${template} e-mail to ${to}`).toBeTruthy();
    const url = new URL(link!);
    return `${url.pathname}${url.hash}`;
  }

  async function toast(page: Page) {
    return page.locator("#status").textContent();
  }

  async function fillRegistration(page: Page, email: string, password: string) {
    await page.getByLabel("Contact name").fill("Marie Tremblay");
    await page.getByLabel("Company (optional)").fill("Inspections <b>Rive-Sud</b> inc.");
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByLabel("Phone").fill("+1 450 555-0100");
    await page.getByLabel("Address", { exact: true }).fill("1200 Boulevard Lapinière");
    await page.getByLabel("City").fill("Brossard");
    await page.getByLabel("Province").selectOption("QC");
    await page.getByLabel("Postal code").fill("j4x 1a1");
    await page.getByLabel("I accept the terms of service.").check();
  }

  it("registers, verifies, signs in and follows balance, a task with its proof and the invoice", async () => {
    // The page has vercel.json's CSP with the Turnstile exception for /client only.
    const shell = await fetch(`${env.host.url}/client/`);
    const csp = shell.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self' https://challenges.cloudflare.com;");
    expect(csp).toContain("frame-src https://challenges.cloudflare.com;");
    expect(csp).toContain("style-src 'self';");
    expect(await shell.text()).not.toMatch(/<script>|<style|style="/);
    const operatorCsp = (await fetch(`${env.host.url}/operator/`)).headers.get("content-security-policy");
    expect(operatorCsp).toContain("script-src 'self';");
    expect(operatorCsp).not.toContain("cloudflare");
    // Capabilities tell the page there is no site key and that tokens are not checked here.
    const caps = await (await fetch(`${env.host.url}/api/capabilities`)).json();
    expect(caps.features.web_registration).toEqual({
      path: "/client/",
      turnstile_site_key: null,
      captcha_checked: false,
    });

    const email = `marie.${randomUUID().slice(0, 8)}@example.com`;
    const password = "correct horse battery";
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 1024, height: 900 },
      locale: "en-CA",
    });
    const page = await context.newPage();

    // Signed out, the dashboard route shows the sign-in form.
    await page.goto(`${env.host.url}/client/#/dashboard`);
    await page.getByRole("heading", { level: 1, name: "Sign in to your account", exact: true }).waitFor();
    await page.getByRole("link", { name: "Create an account" }).first().click();
    await page.getByRole("heading", { level: 1, name: "Create a prepaid account", exact: true }).waitFor();
    await expect
      .poll(() => page.locator("#captcha-note").textContent())
      .toContain("This server does not check the CAPTCHA");
    await fillRegistration(page, email, password);
    await page.getByRole("button", { name: "Create my account" }).click();
    await expect
      .poll(() => toast(page))
      .toBe(
        `Registration received. We e-mailed ${email}: a verification code, or a reminder to sign in if the address already has an account.`,
      );
    await page.getByRole("heading", { level: 1, name: "Verify your e-mail", exact: true }).waitFor();
    const registration = watch.requests.find(
      (r) => r.method === "POST" && r.url.endsWith("/api/client-account"),
    );
    expect(registration).toBeTruthy();

    // E-mail verification: a wrong code is refused, the e-mailed one accepted.
    await page.goto(`${env.host.url}/client/#/verify`);
    await page.getByLabel("Verification code").fill("vfy_wrongwrongwrong");
    await page.getByRole("button", { name: "Verify", exact: true }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toBe("This code is not valid, has expired or was already used.");
    // The e-mailed link opens the page with the code filled in.
    const verifyCode = await codeFromOutbox(email, "account-verify-email", "vfy_");
    await page.goto(`${env.host.url}${await linkFromOutbox(email, "account-verify-email")}`);
    await expect.poll(() => page.getByLabel("Verification code").inputValue()).toBe(verifyCode);
    await page.getByRole("button", { name: "Verify", exact: true }).click();
    await expect.poll(() => toast(page)).toBe("E-mail address verified.");
    await page.getByRole("heading", { level: 1, name: "Sign in to your account", exact: true }).waitFor();

    // The same e-mail again, now verified: the same answer as a new address (issue 25: the page never
    // tells whether an address has an account); the owner gets a reminder to sign in instead of a code.
    await page.goto(`${env.host.url}/client/#/register`);
    await page.getByRole("heading", { level: 1, name: "Create a prepaid account", exact: true }).waitFor();
    await fillRegistration(page, email, password);
    await page.getByRole("button", { name: "Create my account" }).click();
    await expect
      .poll(() => toast(page))
      .toBe(
        `Registration received. We e-mailed ${email}: a verification code, or a reminder to sign in if the address already has an account.`,
      );
    await page.getByRole("heading", { level: 1, name: "Verify your e-mail", exact: true }).waitFor();
    expect(await linkFromOutbox(email, "account-exists")).toBe("/client/#/reset");
    await page.goto(`${env.host.url}/client/#/login`);
    await page.getByRole("heading", { level: 1, name: "Sign in to your account", exact: true }).waitFor();

    // Sign in: a wrong password, then the right one; the JWT is kept in sessionStorage only.
    await page.getByLabel("E-mail", { exact: true }).fill(email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("Wrong e-mail or password.");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Your account", exact: true }).waitFor();
    const session = JSON.parse((await page.evaluate(() => sessionStorage.getItem("client.jwt")))!);
    expect(session.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(await page.evaluate(() => localStorage.getItem("client.jwt"))).toBeNull();
    expect(await page.evaluate(() => document.cookie)).toBe("");
    // Company name with markup is shown as text.
    await expect.poll(() => page.locator("main").textContent()).toContain("Inspections <b>Rive-Sud</b> inc.");
    expect(await page.locator("main b").count()).toBe(0);
    // No deposit yet: nothing available, blocked.
    expect(await page.locator("#available-balance").textContent()).toBe("$0.00");
    expect(await page.locator("#spending-level").textContent()).toBe("blocked: no funds available");
    await expect.poll(() => page.locator("main").textContent()).toContain("waiting for a first deposit");

    // The operator deposits 500 CAD.
    const deposit = await api("POST", "/api/account-admin", env.admin, {
      action: "deposit",
      email,
      amount_cad: 500,
      description: "Bank transfer 2025-001",
    });
    expect(deposit.status).toBe(200);
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect.poll(() => page.locator("#available-balance").textContent()).toBe("$500.00");
    expect(await page.locator("#spending-level").textContent()).toBe("OK");

    // API keys: a key typed with the client's e-mail by anyone is not linked; the client links it by
    // pasting it, unlinks it, and creates the key its agent will use (shown once).
    const typed = await fetch(`${env.host.url}/api/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "laptop-agent", contact: email }),
    });
    const typedKey = (await typed.json()).api_key as string;
    expect((await api("GET", "/api/client-account", typedKey)).status).toBe(404);
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("heading", { level: 1, name: "API keys of this account", exact: true }).waitFor();
    await expect
      .poll(() => page.locator("main").textContent())
      .toContain("No key is linked to this account.");
    await page.getByLabel("Full API key").fill("svc_notarealkeynotarealkeynotarealkeynotareal");
    await page.getByRole("button", { name: "Link the key" }).click();
    await expect
      .poll(() => page.locator("main").textContent())
      .toContain("No active key matches what you pasted.");
    await page.getByLabel("Full API key").fill(typedKey);
    await page.getByRole("button", { name: "Link the key" }).click();
    await expect.poll(() => toast(page)).toBe("Key laptop-agent linked to this account.");
    const linkedRow = page
      .getByRole("region", { name: "Linked keys" })
      .getByRole("row")
      .filter({ hasText: "laptop-agent" });
    await expect.poll(() => linkedRow.textContent()).toContain(`…${typedKey.slice(-4)}`);
    expect((await api("GET", "/api/client-account", typedKey)).body.account.email).toBe(email);
    await linkedRow.getByRole("button", { name: "Unlink laptop-agent" }).click();
    await expect
      .poll(() => toast(page))
      .toBe("Key laptop-agent unlinked: it no longer bills or reads this account.");
    await expect
      .poll(() => page.locator("main").textContent())
      .toContain("No key is linked to this account.");
    expect((await api("GET", "/api/client-account", typedKey)).status).toBe(404);
    await page.getByLabel("Key name (your agent or application)").fill("inspection-agent");
    await page.getByRole("button", { name: "Create the key" }).click();
    await page.getByRole("heading", { level: 2, name: "New key inspection-agent", exact: true }).waitFor();
    const clientKey = (await page.locator("#new-key").textContent())!;
    expect(clientKey).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    await expect
      .poll(() =>
        page
          .getByRole("region", { name: "Linked keys" })
          .getByRole("row")
          .filter({ hasText: "inspection-agent" })
          .count(),
      )
      .toBe(1);
    await shot(page, env.shots, "client-keys.png");
    // Shown once: a reload of the page no longer shows it.
    await page.getByRole("link", { name: "Dashboard" }).click();
    await page.getByRole("heading", { level: 1, name: "Your account", exact: true }).waitFor();

    // A task submitted with the account's key: approved (charged to the account),
    // dispatched and completed with a proof photo.
    const submitted = await api("POST", "/api/submit-task", clientKey, { ...validTask, lang: "en" });
    expect(submitted.status).toBe(201);
    const taskId = submitted.body.task_id as string;
    const approved = await api("POST", "/api/task-review", env.admin, { task_id: taskId, action: "approve" });
    expect(approved.body).toMatchObject({ status: "paid" });
    expect(approved.body.payment).toMatchObject({ method: "account", amount_cad: 379.67 });
    for (const action of ["dispatch", "on_site"])
      expect((await api("POST", "/api/task-complete", env.admin, { task_id: taskId, action })).status).toBe(
        200,
      );
    const proof = pngProof("storefront.png");
    const done = await api("POST", "/api/task-complete", env.admin, {
      task_id: taskId,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      operator_notes: "Storefront photographed; hours posted 9-17.",
      proof_files: [proof],
    });
    expect(done.body.status).toBe("completed");

    await page.getByRole("button", { name: "Refresh" }).click();
    await expect.poll(() => page.locator("#available-balance").textContent()).toBe("$120.33");
    expect(await page.locator("#spending-level").textContent()).toBe("warning: balance getting low");
    const tasksTable = page.getByRole("region", { name: "Tasks" });
    const taskRow = tasksTable.getByRole("row").filter({ hasText: taskId });
    expect(await taskRow.textContent()).toMatch(/SVC-01.*completed.*\$379\.67.*prepaid account/);
    const txTable = page.getByRole("region", { name: "Transactions" });
    expect(await txTable.getByRole("row").filter({ hasText: "task charge" }).textContent()).toContain(
      "-$379.67",
    );
    expect(await txTable.getByRole("row").filter({ hasText: "deposit" }).textContent()).toContain("+$500.00");
    const invoiceRows = page.getByRole("region", { name: "Invoices" }).getByRole("row");
    expect(await invoiceRows.count()).toBe(3); // header, deposit, task charge
    await shot(page, env.shots, "client-dashboard.png", true);

    // The task with its proof image.
    await taskRow.getByRole("link", { name: taskId }).click();
    await page.getByRole("heading", { level: 1, name: `Task ${taskId}`, exact: true }).waitFor();
    const image = page.getByRole("img", { name: "storefront.png" });
    await image.waitFor();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    expect(await image.getAttribute("src")).toBe(`data:image/png;base64,${proof.content}`);
    await expect
      .poll(() => page.locator("main").textContent())
      .toContain("Storefront photographed; hours posted 9-17.");
    expect(await page.locator(".history li").allTextContents()).toEqual(
      ["received", "accepted, awaiting payment", "paid", "dispatched", "on site", "completed"].map((status) =>
        expect.stringMatching(new RegExp(` — ${status}$`)),
      ),
    );
    await shot(page, env.shots, "client-task.png", true);

    // The invoice of the charge, readable.
    await page.getByRole("link", { name: "Back to the dashboard" }).click();
    await page.getByRole("heading", { level: 1, name: "Your account", exact: true }).waitFor();
    await page
      .getByRole("region", { name: "Invoices" })
      .getByRole("row")
      .filter({ hasText: "task charge" })
      .getByRole("link")
      .click();
    await page.getByRole("heading", { level: 1, name: /^Invoice inv_/ }).waitFor();
    expect(await page.locator("#invoice-total").textContent()).toBe("$379.67");
    const billTo = page.locator("address").filter({ hasText: "Bill to" });
    expect(await billTo.textContent()).toMatch(
      /Marie Tremblay.*1200 Boulevard Lapinière.*Brossard QC J4X 1A1/,
    );
    expect(await page.getByRole("link", { name: taskId }).count()).toBe(1);
    await shot(page, env.shots, "client-invoice.png");

    // The JWT went only in Authorization headers (never in a URL), and only to the client's endpoints
    // and the task status (whose content is the account's: docs/security.md "Who can read what").
    const bearer = watch.requests.filter((r) => r.headers.authorization);
    expect(bearer.length).toBeGreaterThan(0);
    for (const r of bearer) {
      expect(r.headers.authorization).toBe(`Bearer ${session.token}`);
      expect(["/api/client-account", "/api/account-keys", "/api/submit-task"]).toContain(
        new URL(r.url).pathname,
      );
    }
    expect(bearer.some((r) => new URL(r.url).pathname === "/api/submit-task")).toBe(true);
    expect(watch.requests.filter((r) => r.url.includes(session.token))).toEqual([]);

    // Log out ends the session on the server and forgets the token.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to your account", exact: true }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem("client.jwt"))).toBeNull();
    const logout = watch.requests.find((r) => r.url.endsWith("/api/client-auth?action=logout"));
    expect(logout?.headers.authorization).toBe(`Bearer ${session.token}`);
    const afterLogout = await fetch(`${env.host.url}/api/client-account`, {
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect(afterLogout.status).toBe(401);
    await context.close();
    expect(watch.problems).toEqual([]);
  }, 180_000);

  it("resets a password, speaks French and fits a phone", async () => {
    const email = `luc.${randomUUID().slice(0, 8)}@example.com`;
    const created = await fetch(`${env.host.url}/api/client-account`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        contact_name: "Luc Gagnon",
        email,
        password: "first password",
        phone: "514 555-0199",
        address_line1: "50 Rue Saint-Charles O",
        city: "Longueuil",
        postal_code: "J4H 1C6",
        lang: "fr",
        tos_accepted: true,
        cf_turnstile_token: "dev-unchecked-turnstile-token",
      }),
    });
    expect(created.status).toBe(201);

    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 390, height: 844 },
      locale: "fr-CA",
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await page.goto(`${env.host.url}/client/#/reset`);
    await page
      .getByRole("heading", { level: 1, name: "Réinitialiser le mot de passe", exact: true })
      .waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("fr");
    await page.getByLabel("Courriel").fill(email);
    await page.getByRole("button", { name: "M'envoyer un code" }).click();
    await expect
      .poll(() => toast(page))
      .toBe("Si un compte existe pour ce courriel, un code de réinitialisation est en route.");
    // Follow the e-mailed link: the code is filled in, only the new password is typed.
    const resetCode = await codeFromOutbox(email, "account-password-reset", "rst_");
    await page.goto(`${env.host.url}${await linkFromOutbox(email, "account-password-reset")}`);
    await expect.poll(() => page.getByLabel("Code de réinitialisation (rst_…)").inputValue()).toBe(resetCode);
    await page.getByLabel("Nouveau mot de passe").fill("second password");
    await page.getByRole("button", { name: "Enregistrer le mot de passe" }).click();
    await expect.poll(() => toast(page)).toBe("Mot de passe changé. Vous pouvez vous connecter.");
    await page.getByRole("heading", { level: 1, name: "Connexion à votre compte", exact: true }).waitFor();
    // The sign-in form knows the e-mail from the link.
    await expect.poll(() => page.getByLabel("Courriel").inputValue()).toBe(email);
    await page.getByLabel("Mot de passe").fill("second password");
    await page.getByRole("button", { name: "Se connecter", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Votre compte", exact: true }).waitFor();
    expect(await page.locator("#available-balance").textContent()).toMatch(/^0,00[\s\u202f]\$$/);
    // A reset code reached the mailbox, so the e-mail counts as verified.
    await expect.poll(() => page.locator("main").textContent()).toContain("en attente d'un premier dépôt");
    expect(await page.locator("main").textContent()).not.toContain("pas encore vérifié");
    await expect.poll(() => page.locator("main").textContent()).toContain("Aucune tâche pour l'instant.");
    // Nothing overflows the phone's width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, env.shots, "client-dashboard-phone.png");

    // The API keys page in French on the phone: create a key, unlink it.
    await page.getByRole("link", { name: "Clés d'API" }).click();
    await page.getByRole("heading", { level: 1, name: "Clés d'API de ce compte", exact: true }).waitFor();
    await expect
      .poll(() => page.locator("main").textContent())
      .toContain("Aucune clé n'est reliée à ce compte.");
    await page.getByLabel("Nom de la clé (votre agent ou application)").fill("agent-mobile");
    await page.getByRole("button", { name: "Créer la clé" }).click();
    await page.getByRole("heading", { level: 2, name: "Nouvelle clé agent-mobile", exact: true }).waitFor();
    expect(await page.locator("#new-key").textContent()).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByRole("button", { name: "Délier agent-mobile" }).click();
    await expect
      .poll(() => toast(page))
      .toBe("Clé agent-mobile déliée : elle ne facture plus ce compte et ne peut plus le lire.");
    await page.getByRole("link", { name: "Tableau de bord" }).click();
    await page.getByRole("heading", { level: 1, name: "Votre compte", exact: true }).waitFor();

    // English again from the header; the view follows.
    await page.getByLabel("Langue").selectOption("en");
    await page.getByRole("heading", { level: 1, name: "Your account", exact: true }).waitFor();
    await context.close();
    expect(watch.problems).toEqual([]);
  }, 180_000);
});
