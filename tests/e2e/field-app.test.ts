/**
 * The field app (public/field/) in a real browser: Debian's Chromium driven by playwright-core
 * against the local host (vercel.json's Content-Security-Policy), on a phone-sized screen (390×844)
 * with the browser's geolocation set near the task's place. A field person signs in (password and
 * a TOTP code from otplib), sees the tasks assigned to them (the one at risk first), checks in,
 * takes a photo through the camera input (one upload per file) and completes; the API then shows
 * the task completed with the photo and the site visit. A second task, checked in from 2 km away,
 * is refused with the distance; a reason gets it accepted and flagged.
 *
 * Skipped (with a message) when no Chromium binary exists. `UPDATE_SCREENSHOTS=1` writes the
 * screenshots to docs/screenshots/ (else to a temp dir).
 */
import path from "node:path";
import { eq } from "drizzle-orm";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { tasks } from "../../lib/db/schema/index.js";
import { flagTasksAtRisk } from "../../lib/field/deadline-watch.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { createStaff, nextTotpCode, type TestStaff } from "../helpers/staff.js";
import { validTask } from "../helpers/tasks.js";
import {
  CHROMIUM,
  newWatchedContext,
  ROOT,
  shot,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

warnIfNoChromium("tests/e2e/field-app.test.ts");

/** A JPEG with EXIF (time and GPS) from the capture fixtures. */
const PHOTO = path.join(ROOT, "tests/fixtures/capture/with-gps.jpg");

// Timeouts: each test drives Chromium (another process) through pages and API round trips, up to
// ~10 s on an idle machine; 180 s a test (30 s a page wait, 20 s an expect.poll: browser.ts)
// leaves room for a loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("field app in Chromium", () => {
  useTestDatabase();
  const env = useBrowserHost("ptes-field-");
  const { api } = env;
  const watch: Watch = { problems: [], requests: [] };
  let agent: string;
  let field: TestStaff;

  beforeAll(async () => {
    agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
    field = await createStaff("field", "Sam Tremblay");
  });

  /** A paid task assigned to `staff`; its id and place [lon, lat]. */
  async function assignedTask(extra: Record<string, unknown> = {}, staff = field) {
    const created = await api("POST", "/api/submit-task", agent, { ...validTask, lang: "en", ...extra });
    const id = created.body.task_id as string;
    await api("POST", "/api/task-review", env.admin, { task_id: id, action: "approve", price_cad: 250 });
    await api("POST", "/api/task-payment", env.admin, { task_id: id, note: "e-transfer" });
    const assigned = await api("POST", "/api/task-assign", env.admin, {
      task_id: id,
      staff_id: staff.staffId,
    });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    return { id, place: assigned.body.location.coordinates as [number, number] };
  }

  /** A phone context whose position is `metres` north of `place`. */
  async function phone(place: [number, number], metres: number, locale = "en-CA"): Promise<BrowserContext> {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      locale,
      permissions: ["geolocation"],
      geolocation: { latitude: place[1] + metres / 111_195, longitude: place[0], accuracy: 15 },
    });
    context.setDefaultTimeout(30_000); // a page wait, on a loaded machine (Playwright's default)
    return context;
  }

  /** Signs `staff` in through the form (a TOTP code is accepted once: one sign-in per person here). */
  async function signIn(page: Page, staff = field) {
    await page.goto(`${env.host.url}/field/`);
    await page.getByLabel("E-mail").fill(staff.email);
    await page.getByLabel("Password").fill(staff.password);
    await page.getByLabel("Authenticator code").fill(await nextTotpCode(staff));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
  }

  it("signs in, checks in on site, uploads a photo per request and completes", async () => {
    const task = await assignedTask({ special_instructions: "Ring the bell at the back door." });
    // Another one, due sooner and flagged by the deadline watch: listed first with its badge.
    const risky = await assignedTask({ task_description: "Photograph the loading dock before noon." });
    const now = Date.now();
    await (await getDb())
      .update(tasks)
      .set({ paidAt: new Date(now - 60 * 3_600_000), executionDeadline: new Date(now + 3 * 3_600_000) })
      .where(eq(tasks.id, risky.id));
    expect((await flagTasksAtRisk()).flagged).toBe(1);

    const shell = await fetch(`${env.host.url}/field/`);
    expect(shell.headers.get("content-security-policy")).toMatch(/script-src 'self';.*style-src 'self';/);
    expect(await shell.text()).not.toMatch(/<script>|<style|style="/);

    const context = await phone(task.place, 25);
    const page = await context.newPage();
    await signIn(page);
    // The session is the HttpOnly cookie: nothing readable by the page, nothing stored.
    expect(await page.evaluate(() => document.cookie)).not.toContain("staff_session");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k !== "ui.lang"))).toEqual([]);

    expect(await page.locator(".card-title a").allTextContents()).toEqual([risky.id, task.id]);
    const first = page.locator(".card").first();
    expect(await first.locator(".badge").allTextContents()).toContain("Deadline at risk");
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > 391)
        .map((el) => `${el.tagName}.${el.className}`),
    );
    expect(wide).toEqual([]);
    await shot(page, env.shots, "field-tasks-phone.png");

    await page.getByRole("link", { name: task.id }).click();
    await page.getByRole("heading", { level: 1, name: `Task ${task.id}`, exact: true }).waitFor();
    await expect.poll(() => page.getByText("Ring the bell at the back door.").count()).toBe(1);
    const [lon, lat] = task.place;
    expect(
      await page.getByRole("link", { name: "Open in OpenStreetMap (new tab)" }).getAttribute("href"),
    ).toBe(`https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=17/${lat}/${lon}`);
    expect(await page.getByRole("link", { name: "Open in my maps app" }).getAttribute("href")).toBe(
      `geo:${lat},${lon}`,
    );

    // SVC-01 requires a site visit: "Complete task" is disabled until the check-in, and says why.
    const completeButton = page.getByRole("button", { name: "Complete task" });
    expect(await completeButton.isDisabled()).toBe(true);
    expect(await page.locator("#complete-blocked").textContent()).toMatch(
      /requires a site visit\. Check in above/,
    );
    expect(await completeButton.getAttribute("aria-describedby")).toBe("complete-blocked");
    // The heading "Task TASK-…" holds on one line at 390 px.
    const headingLines = await page.locator("h1.task-heading").evaluate((el) => {
      const style = getComputedStyle(el);
      return el.getBoundingClientRect().height / Number.parseFloat(style.lineHeight);
    });
    expect(headingLines).toBeLessThan(1.5);
    await shot(page, env.shots, "field-needs-visit-phone.png", true);

    await page.getByRole("button", { name: "Check in" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Checked in.");
    await page.getByText("Inside the geofence").waitFor();
    expect(await page.getByRole("button", { name: "Complete task" }).isDisabled()).toBe(false);
    await page.getByRole("button", { name: "Check out" }).waitFor();

    const camera = page.getByLabel("Take photos");
    expect(await camera.getAttribute("capture")).toBe("environment");
    expect(await camera.getAttribute("accept")).toBe("image/*");
    await camera.setInputFiles(PHOTO);
    await page.locator(".proof-item", { hasText: "with-gps.jpg" }).waitFor();
    await expect.poll(() => page.locator("#status").textContent()).toBe("with-gps.jpg sent.");
    // The uploaded photo is shown as a thumbnail (decoded: it has pixels), not only its name.
    const thumb = page.getByRole("img", { name: "Photo with-gps.jpg" });
    await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    await shot(page, env.shots, "field-task-phone.png", true);
    // After a reload the page no longer holds the picked file: the thumbnail is the stored photo
    // (GET /api/field-proof), decoded, not a file name alone.
    await page.reload();
    const stored = page.getByRole("img", { name: "Photo with-gps.jpg" });
    await stored.waitFor();
    expect(await stored.getAttribute("src")).toMatch(/^\/api\/field-proof\?task_id=.+&sha256=[0-9a-f]{64}$/);
    await expect.poll(() => stored.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);

    await page.getByLabel("Notes (optional)").fill("Front photographed; shop open.");
    await page.getByRole("button", { name: "Complete task" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Task completed.");
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
    await expect.poll(() => page.locator(".card-title a").allTextContents()).toEqual([risky.id]);

    const done = (await api("GET", `/api/submit-task?task_id=${task.id}`, agent)).body;
    expect(done).toMatchObject({
      status: "completed",
      operator_notes: "Front photographed; shop open.",
      assignment: { operator_display_name: "Sam Tremblay" },
      site_visit: { within_geofence: true, accuracy_m: 15 },
    });
    expect(done.proof_files.map((f: { filename: string }) => f.filename)).toEqual(["with-gps.jpg"]);
    const claims = JSON.parse(Buffer.from(done.receipt.split(".")[1], "base64url").toString("utf8"));
    expect(claims.proof).toEqual([
      { sha256: done.proof_files[0].sha256, size: done.proof_files[0].size, type: "image/jpeg" },
    ]);
    expect(claims.site_visit).toEqual(done.site_visit);
    expect(claims.visit_rule).toEqual({ rule: "required", outcome: "inside_geofence", flags: [] });

    // Every POST rode on the cookie with the CSRF token and an Idempotency-Key; no key anywhere.
    const posts = watch.requests.filter((r) => r.method === "POST" && !r.url.includes("/api/staff-auth"));
    expect(posts.map((p) => new URL(p.url).pathname)).toEqual([
      "/api/field-visit",
      "/api/field-proof",
      "/api/task-complete",
    ]);
    for (const post of posts) {
      expect(post.headers["x-csrf-token"]).toMatch(/^[\w-]{43}$/);
      expect(post.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{32,36}$/);
      expect(post.headers["x-api-key"]).toBeUndefined();
      expect(post.headers.authorization).toBeUndefined();
    }
    await context.close();
  }, 180_000);

  it("refuses a check-in 40 km away with the distance, accepts it with a reason, completes flagged, in French", async () => {
    const alex = await createStaff("field", "Alex");
    const task = await assignedTask(
      { task_description: "Check the sign on the front of the building." },
      alex,
    );
    const context = await phone(task.place, 40_000);
    const page = await context.newPage();
    await signIn(page, alex);
    await page.getByRole("link", { name: task.id }).click();
    await page.getByRole("button", { name: "Check in" }).click();
    const refusal = page.locator("form.reason [role=alert]");
    await expect
      .poll(() => refusal.textContent())
      .toBe("You are 40 km from the task's place; check-in is allowed within 265 m.");
    // The status line no longer says "Getting your position…".
    await expect
      .poll(() => page.locator("#status").textContent())
      .toMatch(/^Not checked in: you are outside/);
    await shot(page, env.shots, "field-refused-phone.png");
    expect((await api("GET", `/api/submit-task?task_id=${task.id}`, env.admin)).body.status).toBe("paid");

    await page
      .getByLabel("Why are you checking in from here?")
      .fill("The building's entrance is on the next street.");
    await page.getByRole("button", { name: "Check in with this reason" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Checked in.");
    await page.getByText("Outside the geofence (flagged)").waitFor();
    const visit = (await api("GET", `/api/submit-task?task_id=${task.id}`, env.admin)).body;
    expect(visit).toMatchObject({
      status: "on_site",
      site_visit: { within_geofence: false, reason: "The building's entrance is on the next street." },
    });

    await page.getByLabel("Language").selectOption("fr");
    await page.getByRole("heading", { level: 1, name: `Tâche ${task.id}`, exact: true }).waitFor();
    await page.getByText("Hors du périmètre (signalé)").waitFor();
    await page.getByText("40 km", { exact: true }).waitFor();
    await shot(page, env.shots, "field-flagged-phone-fr.png", true);
    await page.getByRole("button", { name: "Terminer la tâche" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Tâche terminée.");
    const done = (await api("GET", `/api/submit-task?task_id=${task.id}`, env.admin)).body;
    expect(done).toMatchObject({
      status: "completed",
      visit_rule: { rule: "required", outcome: "outside_geofence", flags: ["OUTSIDE_GEOFENCE"] },
    });
    await page.getByRole("button", { name: "Se déconnecter" }).click();
    await page.getByRole("heading", { level: 1, name: "Connexion terrain", exact: true }).waitFor();
    await context.close();
  }, 180_000);

  it("loaded every page without console errors or CSP violations", () => {
    expect(watch.problems).toEqual([]);
  });
});
