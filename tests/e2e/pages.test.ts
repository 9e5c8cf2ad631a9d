/**
 * The page defects of the first walk-through, checked in Chromium at a phone (390×844) and a
 * desktop (1280×800) viewport: "Log out" hidden on the sign-in pages, toasts that can be
 * dismissed and that sit under the top bar on phones instead of over the content, client tables
 * shown as cards below 600 px, sandbox tasks hidden by default behind a toggle (console and
 * dashboard, never read as "out of band"), the favicon and mark, the terms and privacy pages in
 * both languages (French first) linked from registration, the console's filters read from
 * /api/capabilities; and on every page no horizontal overflow and no console error.
 *
 * Skipped (with a message) when no Chromium binary exists; `.ci/run` installs it.
 */
import { decodeJwt } from "jose";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { openLinkedAccount } from "../accounts/helpers.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { createStaff, freshTotp } from "../helpers/staff.js";
import { validTask } from "../helpers/tasks.js";
import {
  CHROMIUM,
  newWatchedContext,
  signInStaff,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

warnIfNoChromium("tests/e2e/pages.test.ts");

const VIEWPORTS = [
  { name: "phone", width: 390, height: 844, mobile: true },
  { name: "desktop", width: 1280, height: 800, mobile: false },
] as const;

// Timeouts: each test drives Chromium (another process) through pages and API round trips, up to
// ~10 s on an idle machine; 180 s a test (30 s a page wait, 20 s an expect.poll: browser.ts)
// leaves room for a loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("pages at phone and desktop sizes", () => {
  useTestDatabase();
  const env = useBrowserHost("ptes-e2e-pages-");
  const watch: Watch = { problems: [], requests: [] };
  /** Non-API answers of 400 or more (a missing favicon would be one). */
  const missing: string[] = [];
  let jwt: string;
  let realTask: string;
  let sandboxTask: string;

  beforeAll(async () => {
    const key = await makeKey(["audit_only", "task_create"], `pages.${Date.now()}@example.com`);
    ({ jwt } = await openLinkedAccount(key));
    const submit = async (headers: Record<string, string>) => {
      const res = await fetch(`${env.host.url}/api/submit-task`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key, ...headers },
        body: JSON.stringify({ ...validTask, lang: "en" }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { task_id: string }).task_id;
    };
    realTask = await submit({});
    sandboxTask = await submit({ "x-service-mode": "sandbox" });
    // The dashboard data says which tasks are sandbox ones.
    const dash = await fetch(`${env.host.url}/api/client-account?include=dashboard`, {
      headers: { authorization: `Bearer ${jwt}` },
    });
    const rows = ((await dash.json()) as { dashboard: { tasks: { task_id: string; sandbox: boolean }[] } })
      .dashboard.tasks;
    expect(Object.fromEntries(rows.map((r) => [r.task_id, r.sandbox]))).toEqual({
      [realTask]: false,
      [sandboxTask]: true,
    });
  });

  async function openPage(viewport: (typeof VIEWPORTS)[number], init?: { jwt?: string }) {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: viewport.width, height: viewport.height },
      locale: "en-CA",
      isMobile: viewport.mobile,
      hasTouch: viewport.mobile,
    });
    if (init?.jwt) {
      const expiresAt = new Date(decodeJwt(init.jwt).exp! * 1000).toISOString();
      await context.addInitScript(
        (session) => {
          // The first document of a page is about:blank, which has no storage.
          if (location.protocol === "http:") sessionStorage.setItem("client.jwt", JSON.stringify(session));
        },
        { token: init.jwt, expiresAt },
      );
    }
    const page = await context.newPage();
    page.on("response", (res) => {
      const url = new URL(res.url());
      if (res.status() >= 400 && !url.pathname.startsWith("/api/")) missing.push(`${res.status()} ${url}`);
    });
    return page;
  }

  /** Fails when the page is wider than the viewport (a horizontal scroll bar). */
  async function expectNoOverflow(page: Page, width: number, where: string) {
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth, `${where}: page width`).toBeLessThanOrEqual(width);
  }

  async function logoutVisible(page: Page) {
    return page.locator("#logout").isVisible();
  }

  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}×${viewport.height}`;

    it(`${size}: sign-in pages hide "Log out" and fit`, async () => {
      const page = await openPage(viewport);
      for (const [url, title] of [
        ["/operator/", "Operator sign-in"],
        ["/operator/analytics", "Operator sign-in"],
        ["/client/#/login", "Sign in to your account"],
        ["/client/#/register", "Create a prepaid account"],
      ] as const) {
        await page.goto(`${env.host.url}${url}`);
        await page.getByRole("heading", { level: 1, name: title, exact: true }).waitFor();
        expect(await logoutVisible(page), `${url}: Log out`).toBe(false);
        // The favicon and the mark are declared and served.
        expect(await page.locator('link[rel="icon"]').getAttribute("href")).toBe("/favicon.svg");
        await expect
          .poll(() => page.locator(".brand img.mark").evaluate((img: HTMLImageElement) => img.naturalWidth))
          .toBeGreaterThan(0);
        await expectNoOverflow(page, viewport.width, url);
      }
      // Registration links the terms and the privacy policy in the page's language.
      expect(await page.getByRole("link", { name: "Terms of service" }).getAttribute("href")).toBe(
        "/legal/terms#en",
      );
      expect(await page.getByRole("link", { name: "Privacy policy" }).getAttribute("href")).toBe(
        "/legal/privacy#en",
      );
      await page.context().close();
      expect(watch.problems).toEqual([]);
      expect(missing).toEqual([]);
    }, 180_000);

    it(`${size}: the client dashboard hides sandbox tasks by default and shows tables as cards on phones`, async () => {
      const page = await openPage(viewport, { jwt });
      await page.goto(`${env.host.url}/client/#/dashboard`);
      await page.getByRole("heading", { level: 1, name: "Your account", exact: true }).waitFor();
      expect(await logoutVisible(page)).toBe(true);
      const tasks = page.getByRole("region", { name: "Tasks" });
      await tasks.getByRole("link", { name: realTask }).waitFor();
      expect(await tasks.getByRole("link", { name: sandboxTask }).count()).toBe(0);
      expect(await page.locator("main").textContent()).toContain("1 sandbox task(s) hidden.");
      await expectNoOverflow(page, viewport.width, "dashboard");

      // A row is a card below 600 px (block, labelled cells), a table row above.
      const row = tasks.getByRole("row").filter({ hasText: realTask });
      const display = await row.evaluate((tr) => getComputedStyle(tr).display);
      const label = await row
        .locator("td")
        .first()
        .evaluate((td) => getComputedStyle(td, "::before").content);
      if (viewport.width < 600) {
        expect(display).toBe("block");
        expect(label).toBe('"Service"');
        const box = (await row.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      } else {
        expect(display).toBe("table-row");
        expect(label).toBe("none");
      }

      // The toggle shows the sandbox task, marked, never as paid out of band.
      await page.getByLabel("Show sandbox tasks").check();
      const sandboxRow = tasks.getByRole("row").filter({ hasText: sandboxTask });
      await sandboxRow.waitFor();
      expect(await sandboxRow.textContent()).toContain("sandbox");
      expect(await sandboxRow.textContent()).not.toContain("out of band");
      expect(page.url()).toContain("#/dashboard?sandbox=1");
      await expectNoOverflow(page, viewport.width, "dashboard with sandbox tasks");
      await page.getByLabel("Show sandbox tasks").uncheck();
      await expect.poll(() => tasks.getByRole("link", { name: sandboxTask }).count()).toBe(0);

      // The sandbox task's own page says so.
      await page.goto(`${env.host.url}/client/#/task/${sandboxTask}`);
      await page.getByRole("heading", { level: 1, name: `Task ${sandboxTask}`, exact: true }).waitFor();
      expect(await page.locator("main").textContent()).not.toContain("out of band");
      await expectNoOverflow(page, viewport.width, "sandbox task");
      await page.context().close();
      expect(watch.problems).toEqual([]);
      expect(missing).toEqual([]);
    }, 180_000);

    it(`${size}: the console filters from capabilities, hides sandbox tasks, and its toast can be dismissed`, async () => {
      const page = await openPage(viewport);
      await page.clock.install();
      await signInStaff(page, env.host.url, await createStaff("owner"));
      await page.getByRole("heading", { level: 1, name: "Review queue", exact: true }).waitFor();
      const toast = page.locator(".toast");
      await expect.poll(() => page.locator("#status").textContent()).toBe("Signed in.");
      expect(await toast.isVisible()).toBe(true);
      if (viewport.width < 600) {
        // On a phone the toast sits in the flow above the content: it covers nothing.
        const toastBox = (await toast.boundingBox())!;
        const mainBox = (await page.locator("main").boundingBox())!;
        expect(toastBox.y + toastBox.height).toBeLessThanOrEqual(mainBox.y);
      }
      await page.getByRole("button", { name: "Dismiss" }).click();
      await expect
        .poll(() => page.locator("#status").evaluate((el) => el.classList.contains("visible")))
        .toBe(false);
      expect(await page.getByRole("button", { name: "Dismiss" }).count()).toBe(0);
      // A success message also goes away by itself.
      await page.getByRole("link", { name: "Tasks", exact: true }).click();
      await page.getByRole("heading", { level: 1, name: "Tasks", exact: true }).waitFor();
      await page.getByRole("button", { name: "Log out" }).click();
      await page.getByRole("heading", { level: 1, name: "Operator sign-in", exact: true }).waitFor();
      expect(await logoutVisible(page)).toBe(false);
      expect(await page.locator("#status").textContent()).toBe("Signed out; this session no longer works.");
      await page.clock.runFor(7000);
      await expect
        .poll(() => toast.evaluate((el) => el.getBoundingClientRect().width))
        .toBeLessThanOrEqual(1);

      const again = await createStaff("owner");
      // Signed in again: the task list leaves the sandbox task out until the toggle is on.
      await page.getByLabel("E-mail").fill(again.email);
      await page.getByLabel("Password").fill(again.password);
      await page.getByLabel("Authenticator code").fill(await freshTotp(again.totpSecret));
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      // Back on the route where the session ended.
      await page.getByRole("heading", { level: 1, name: "Tasks", exact: true }).waitFor();
      await page.getByRole("link", { name: realTask }).waitFor();
      expect(await page.getByRole("link", { name: sandboxTask }).count()).toBe(0);
      const caps = await (await fetch(`${env.host.url}/api/capabilities`)).json();
      const statusOptions = await page
        .getByLabel("Status", { exact: true })
        .locator("option")
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
      expect(statusOptions).toEqual(["", ...caps.task_statuses]);
      const serviceOptions = await page
        .getByLabel("Service", { exact: true })
        .locator("option")
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
      expect(serviceOptions).toEqual(["", ...caps.services.map((s: { id: string }) => s.id)]);
      await page.getByLabel("Include sandbox tasks").check();
      await page.getByRole("button", { name: "Apply filters" }).click();
      const sandboxCard = page.getByRole("listitem").filter({ hasText: sandboxTask });
      await sandboxCard.waitFor();
      expect(await sandboxCard.locator(".badge-sandbox").textContent()).toBe("sandbox");
      await expectNoOverflow(page, viewport.width, "console tasks");
      await page.context().close();
      expect(watch.problems).toEqual([]);
      expect(missing).toEqual([]);
    }, 180_000);

    it(`${size}: terms and privacy in French first, then English, with the operator's settings`, async () => {
      const page = await openPage(viewport);
      for (const [url, fr, en] of [
        ["/legal/terms", "Conditions d'utilisation", "Terms of service"],
        ["/legal/privacy", "Politique de confidentialité", "Privacy policy"],
      ] as const) {
        await page.goto(`${env.host.url}${url}`);
        const articles = page.locator("article.legal-doc");
        expect(await articles.evaluateAll((list) => list.map((a) => a.getAttribute("lang")))).toEqual([
          "fr",
          "en",
        ]);
        expect(await articles.nth(0).getByRole("heading", { level: 1 }).textContent()).toBe(fr);
        expect(await articles.nth(1).getByRole("heading", { level: 1 }).textContent()).toBe(en);
        // The operator's name and contact come from the settings (via /api/capabilities).
        await expect
          .poll(() => page.locator('[data-setting="operator"]').first().textContent())
          .toBe("Physical Task Execution Service Inc.");
        expect(await page.locator('a[data-setting="contact"]').first().getAttribute("href")).toBe(
          "mailto:operations@example.com",
        );
        await expectNoOverflow(page, viewport.width, url);
      }
      // The privacy page names who is in charge, what is collected, retention and rights.
      const english = await page.locator("article#en").textContent();
      for (const part of ["Who is in charge", "What we collect and why", "Retention", "Your rights"])
        expect(english).toContain(part);
      await page.context().close();
      expect(watch.problems).toEqual([]);
      expect(missing).toEqual([]);
    }, 180_000);
  }
});
