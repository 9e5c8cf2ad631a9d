/**
 * Staff push notifications in a real browser (issue 44 item 6): the field app's "Turn on
 * notifications" button in Debian's Chromium, on a phone-sized screen, under vercel.json's
 * Content-Security-Policy, and the service worker's push handling (public/field/push-sw.js).
 *
 * Headless Chromium has no push service: `pushManager.subscribe` is refused there ("Registration
 * failed - permission denied"; a Playwright context is incognito-like, where Chrome has no Push API), so the subscription itself is tested against the Web Push stand-in
 * (tests/push/push-notifications.test.ts). Here the button registers the worker, the refusal is
 * told to the person (not swallowed), and a push message delivered to the worker through the
 * DevTools protocol (`ServiceWorker.deliverPushMessage`, the payload the server sends) is shown as a
 * notification with the task's link.
 */
import type { CDPSession } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../helpers/db.js";
import { createStaff, nextTotpCode, type TestStaff } from "../helpers/staff.js";
import {
  CHROMIUM,
  newWatchedContext,
  shot,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

warnIfNoChromium("tests/e2e/push.test.ts");

// Timeouts guard against a hang on a loaded 2-core machine; they claim no speed (browser.ts).
describe.skipIf(!CHROMIUM)("push notifications in Chromium", () => {
  useTestDatabase();
  const env = useBrowserHost("ptes-push-");
  const watch: Watch = { problems: [], requests: [] };
  let field: TestStaff;

  beforeAll(async () => {
    field = await createStaff("field", "Sam Push");
  });

  /** The registration id of the service worker of `scopeUrl`, as the DevTools protocol names it. */
  async function registrationId(cdp: CDPSession, scopeUrl: string): Promise<string> {
    return new Promise((resolve) => {
      cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
        const r = registrations.find((x: { scopeURL: string }) => x.scopeURL === scopeUrl);
        if (r) resolve(r.registrationId);
      });
      void cdp.send("ServiceWorker.enable");
    });
  }

  it("the field app offers notifications, registers its worker, and the worker shows a pushed task", async () => {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      locale: "en-CA",
      permissions: ["notifications"],
    });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.goto(`${env.host.url}/field/`);
    // Signed out: no button.
    await page.getByLabel("E-mail").waitFor();
    expect(await page.locator("#push-toggle").count()).toBe(0);
    await page.getByLabel("E-mail").fill(field.email);
    await page.getByLabel("Password").fill(field.password);
    await page.getByLabel("Authenticator code").fill(await nextTotpCode(field));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();

    const button = page.getByRole("button", { name: "Turn on notifications" });
    await button.waitFor();
    expect(await button.getAttribute("aria-pressed")).toBe("false");
    // The top bar keeps the phone's width with the button in it.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, env.shots, "field-push-button-en.png");
    await button.click();
    // No push service here: the refusal is told, the button stays off.
    await expect
      .poll(() => page.locator("#status").textContent())
      .toMatch(/Notifications could not be turned on/);
    expect(await button.getAttribute("aria-pressed")).toBe("false");
    const scope = `${env.host.url}/field/`;
    expect(
      await page.evaluate(async () => {
        const r = await navigator.serviceWorker.getRegistration("/field/");
        return r?.active?.scriptURL ?? null;
      }),
    ).toBe(`${env.host.url}/field/sw.js`); // the offline worker, which imports push-sw.js

    // A message as the server encrypts it for a subscription, delivered to the worker.
    const cdp = await context.newCDPSession(page);
    const id = await registrationId(cdp, scope);
    const payload = {
      kind: "task_assigned",
      task_id: "TASK-PUSH-1",
      title: "New task assigned to you",
      body: "TASK-PUSH-1 — to be done by November 30, 2026.",
      url: "/field/#/task/TASK-PUSH-1",
      tag: "task_assigned:TASK-PUSH-1",
    };
    await cdp.send("ServiceWorker.deliverPushMessage", {
      origin: env.host.url,
      registrationId: id,
      data: JSON.stringify(payload),
    });
    await expect
      .poll(() =>
        page.evaluate(async () => {
          const r = await navigator.serviceWorker.getRegistration("/field/");
          const shown = (await r?.getNotifications()) ?? [];
          return shown.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
        }),
      )
      .toEqual([
        {
          title: payload.title,
          body: payload.body,
          tag: payload.tag,
          data: { url: payload.url },
        },
      ]);
    // A click on it opens the task: the worker's notificationclick, dispatched in the worker with the
    // real notification (headless Chromium cannot click one), sends the open window to the task.
    await page.reload();
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    const [worker] = context.serviceWorkers();
    expect(worker, "the field app's service worker").toBeDefined();
    const dispatched = await worker!.evaluate(async () => {
      const sw = self as unknown as {
        registration: { getNotifications(): Promise<Notification[]> };
        dispatchEvent(e: Event): boolean;
        NotificationEvent: new (type: string, init: object) => Event;
      };
      const [shown] = await sw.registration.getNotifications();
      try {
        sw.dispatchEvent(new sw.NotificationEvent("notificationclick", { notification: shown }));
        return "ok";
      } catch (error) {
        return String(error);
      }
    });
    expect(dispatched).toBe("ok");
    await expect.poll(() => new URL(page.url()).hash).toBe("#/task/TASK-PUSH-1");
    // Chromium logs why it refused the subscription (a Playwright context is incognito-like); no
    // other error (a CSP violation, a failing script) may appear.
    expect(watch.problems.filter((p) => !p.includes("does not support the Push API in incognito"))).toEqual(
      [],
    );
    await context.close();
  }, 180_000);
});
