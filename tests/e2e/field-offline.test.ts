/**
 * The field app offline (issue 44 item 5; docs/staff-and-audit.md "Offline") in a real browser:
 * Chromium (playwright-core) against the local host, a 390×844 phone with emulated geolocation and
 * network (`context.setOffline`). The app is installable (manifest, service worker controlling
 * /field/); offline, the task stays readable (also after a reload), a check-in and two photos are
 * kept in IndexedDB as "Waiting to send" with their capture time and position and nothing reaches
 * the server; back online they are sent once each (the server holds exactly one check-in and two
 * photos) and the task shows when the check-in was made and when it was received, as do the status
 * and the signed receipt. A check-in kept offline for a task reassigned meanwhile is refused 409
 * and stays on the phone saying who has the task now.
 *
 * Skipped (with a message) when no Chromium binary exists. `UPDATE_SCREENSHOTS=1` writes the
 * screenshots (field-offline-phone.png, field-offline-phone-fr.png) to docs/screenshots/.
 */
import path from "node:path";
import { and, eq } from "drizzle-orm";
import type { BrowserContext, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { auditLog, proofFiles, siteVisits } from "../../lib/db/schema/index.js";
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

warnIfNoChromium("tests/e2e/field-offline.test.ts");

const PHOTO_A = path.join(ROOT, "tests/fixtures/capture/with-gps.jpg");
const PHOTO_B = path.join(ROOT, "tests/fixtures/capture/no-exif.jpg");

// Timeouts: as tests/e2e/field-app.test.ts (guards against a hang on a loaded machine, no speed claim).
describe.skipIf(!CHROMIUM)("field app offline in Chromium", () => {
  useTestDatabase();
  const env = useBrowserHost("ptes-field-offline-");
  const { api } = env;
  const watch: Watch = { problems: [], requests: [] };
  let agent: string;

  beforeAll(async () => {
    agent = await makeKey(["audit_only", "task_create", "task_cancel"]);
  });

  async function assignedTask(staff: TestStaff) {
    const created = await api("POST", "/api/submit-task", agent, { ...validTask, lang: "en" });
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

  async function phone(place: [number, number], metres: number): Promise<BrowserContext> {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      locale: "en-CA",
      permissions: ["geolocation"],
      geolocation: { latitude: place[1] + metres / 111_195, longitude: place[0], accuracy: 15 },
    });
    context.setDefaultTimeout(30_000);
    return context;
  }

  /** Signs in, waits for the service worker to control the page and opens task `id`. */
  async function signInAndOpen(page: Page, staff: TestStaff, id: string) {
    await page.goto(`${env.host.url}/field/`);
    await page.getByLabel("E-mail").fill(staff.email);
    await page.getByLabel("Password").fill(staff.password);
    await page.getByLabel("Authenticator code").fill(await nextTotpCode(staff));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
    await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
    await page.getByRole("link", { name: id }).click();
    await page.getByRole("heading", { level: 1, name: `Task ${id}`, exact: true }).waitFor();
  }

  const visitsOf = async (id: string) =>
    (await getDb()).select().from(siteVisits).where(eq(siteVisits.taskId, id));
  const photosOf = async (id: string) =>
    (await getDb()).select().from(proofFiles).where(eq(proofFiles.taskId, id));

  it("is installable: manifest with start_url /field/, standalone, icons; the worker controls /field/", async () => {
    const html = await (await fetch(`${env.host.url}/field/`)).text();
    expect(html).toContain('<link rel="manifest" href="/field/manifest.webmanifest">');
    const res = await fetch(`${env.host.url}/field/manifest.webmanifest`);
    expect(res.headers.get("content-type")).toMatch(/^application\/manifest\+json/);
    const manifest = await res.json();
    expect(manifest).toMatchObject({ start_url: "/field/", scope: "/field/", display: "standalone" });
    expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/);
    const sizes = manifest.icons.map((i: { sizes: string }) => i.sizes);
    expect(sizes).toContain("192x192");
    expect(sizes).toContain("512x512");
    for (const icon of manifest.icons) {
      const png = await fetch(`${env.host.url}${icon.src}`);
      expect(png.status, icon.src).toBe(200);
      expect(png.headers.get("content-type")).toBe("image/png");
    }
  });

  it("offline: check in and two photos kept on the phone, sent once each when the network returns, both times shown", async () => {
    const sam = await createStaff("field", "Sam Offline");
    const task = await assignedTask(sam);
    const context = await phone(task.place, 25);
    const page = await context.newPage();
    await signInAndOpen(page, sam, task.id);

    await context.setOffline(true);
    await page.locator("#offline-banner").waitFor();
    // Read offline: the page, its modules and the task come from the worker's caches.
    await page.reload();
    await page.getByRole("heading", { level: 1, name: `Task ${task.id}`, exact: true }).waitFor();

    await page.getByRole("button", { name: "Check in" }).click();
    await expect
      .poll(() => page.locator("#status").textContent())
      .toMatch(/^No network: the check-in is kept/);
    const outbox = page.locator("section.outbox");
    await outbox.locator(".outbox-item[data-kind=check_in]").waitFor();
    await page.getByText(/^Check-in made at .*: waiting to send\.$/).waitFor();
    expect(await page.getByRole("button", { name: "Check in" }).count()).toBe(0);

    await page.getByLabel("Take photos").setInputFiles([PHOTO_A, PHOTO_B]);
    await expect.poll(() => outbox.locator(".outbox-item[data-kind=photo]").count()).toBe(2);
    expect(await outbox.locator(".outbox-item .badge").allTextContents()).toEqual([
      "Waiting to send",
      "Waiting to send",
      "Waiting to send",
    ]);
    const itemText = await outbox.locator(".outbox-item").first().textContent();
    expect(itemText).toMatch(/Position \d+\.\d{5}, -?\d+\.\d{5}/);
    await expect.poll(() => page.locator("#offline-banner").textContent()).toMatch(/3 waiting to send/);
    // IndexedDB holds them with their capture time, position and key.
    const kept = await page.evaluate(
      () =>
        new Promise<{ kind: string; key: string; captured_at: string; position: unknown }[]>((resolve) => {
          const open = indexedDB.open("field-offline");
          open.onsuccess = () => {
            const req = open.result.transaction("outbox").objectStore("outbox").getAll();
            req.onsuccess = () => resolve(req.result);
          };
        }),
    );
    expect(kept.map((i) => i.kind)).toEqual(["check_in", "photo", "photo"]);
    expect(new Set(kept.map((i) => i.key)).size).toBe(3);
    for (const item of kept) expect(Number.isNaN(Date.parse(item.captured_at))).toBe(false);
    expect(kept[0]!.position).toMatchObject({ accuracy_m: 15 });
    expect(await visitsOf(task.id)).toHaveLength(0);
    expect(await photosOf(task.id)).toHaveLength(0);
    await shot(page, env.shots, "field-offline-phone.png", true);
    await page.getByLabel("Language").selectOption("fr");
    await page.getByRole("heading", { level: 2, name: "En attente d'envoi" }).waitFor();
    await expect
      .poll(() => page.locator("#offline-banner").textContent())
      .toBe("Hors ligne : 3 en attente d'envoi, gardés sur ce téléphone.");
    await shot(page, env.shots, "field-offline-phone-fr.png", true);
    await page.getByLabel("Langue").selectOption("en");
    await page.getByRole("heading", { level: 2, name: "Waiting to send" }).waitFor();

    await context.setOffline(false);
    await expect.poll(() => page.locator("#status").textContent()).toBe("Sent: 3 kept while offline.");
    await expect.poll(() => page.locator("section.outbox").isHidden()).toBe(true);
    await page.getByText("Inside the geofence").waitFor();
    await page.getByText("Received by the server at").waitFor();
    await expect.poll(() => page.locator("#offline-banner").isHidden()).toBe(true);

    // Once each: one check-in, two photos, one audit row of each upload.
    const [visit] = await visitsOf(task.id);
    expect(await visitsOf(task.id)).toHaveLength(1);
    expect((await photosOf(task.id)).map((p) => p.filename).sort()).toEqual(["no-exif.jpg", "with-gps.jpg"]);
    const audits = await (await getDb())
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.taskId, task.id)));
    expect(audits.filter((a) => a.action === "visit.check_in")).toHaveLength(1);
    expect(audits.filter((a) => a.action === "proof.upload")).toHaveLength(2);
    expect(visit!.checkInOffline).toBe(true);
    expect(visit!.checkedInAt.toISOString()).toBe(new Date(kept[0]!.captured_at).toISOString());
    for (const p of await photosOf(task.id)) expect(p.deviceCapturedAt).not.toBeNull();

    await page.getByRole("button", { name: "Complete task" }).click();
    await expect.poll(() => page.locator("#status").textContent()).toBe("Task completed.");
    const done = (await api("GET", `/api/submit-task?task_id=${task.id}`, env.admin)).body;
    expect(done.status).toBe("completed");
    expect(done.site_visit).toMatchObject({ check_in_offline: true, within_geofence: true });
    expect(Date.parse(done.site_visit.check_in_received_at)).toBeGreaterThan(
      Date.parse(done.site_visit.checked_in_at),
    );
    const claims = JSON.parse(Buffer.from(done.receipt.split(".")[1], "base64url").toString("utf8"));
    expect(claims.site_visit).toEqual(done.site_visit);
    expect(claims.proof).toHaveLength(2);
    await context.close();
  }, 240_000);

  it("a check-in kept offline for a task reassigned meanwhile is refused 409 and stays on the phone, naming the new assignee", async () => {
    const kim = await createStaff("field", "Kim Offline");
    const lee = await createStaff("field", "Lee Tremblay");
    const task = await assignedTask(kim);
    const context = await phone(task.place, 25);
    const page = await context.newPage();
    await signInAndOpen(page, kim, task.id);
    await context.setOffline(true);
    await page.getByRole("button", { name: "Check in" }).click();
    await page.locator("section.outbox .outbox-item[data-kind=check_in]").waitFor();
    const moved = await api("POST", "/api/task-assign", env.admin, {
      task_id: task.id,
      staff_id: lee.staffId,
    });
    expect(moved.status).toBe(200);

    await context.setOffline(false);
    const refused = page.locator("section.outbox .outbox-refused");
    await refused.waitFor();
    expect(await refused.getByRole("alert").textContent()).toBe(
      "Refused: this task was reassigned to Lee Tremblay.",
    );
    expect(await visitsOf(task.id)).toHaveLength(0);
    // Still on the phone after a reload (IndexedDB), until the person removes it.
    await page.goto(`${env.host.url}/field/#/tasks`);
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
    expect(await page.locator(".card-title a").allTextContents()).toEqual([]);
    const kept = page.getByRole("region", { name: `Kept on this phone: task ${task.id}` });
    await kept.getByText("Refused: this task was reassigned to Lee Tremblay.").waitFor();
    await page.goto(`${env.host.url}/field/#/task/${task.id}`);
    await page.getByText("This task is not in your list").waitFor();
    await page.locator("section.outbox .outbox-refused").waitFor();
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: "Remove from this phone" }).click();
    await expect.poll(() => page.locator("section.outbox").isHidden()).toBe(true);
    await context.close();
  }, 240_000);

  it("loaded every page without console errors or CSP violations", () => {
    // Offline, Chromium logs each request that found no network (the attempts before keeping an item).
    expect(watch.problems.filter((p) => !p.includes("net::ERR_INTERNET_DISCONNECTED"))).toEqual([]);
  });
});
