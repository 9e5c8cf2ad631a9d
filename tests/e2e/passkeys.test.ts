/**
 * Passkeys in a real browser (issue 44 item 3; docs/staff-and-audit.md "Passkeys"): Chromium's
 * virtual authenticator (CDP `WebAuthn.enable` + `WebAuthn.addVirtualAuthenticator`, an internal
 * platform authenticator with resident keys and user verification, as a phone's) through
 * playwright-core's CDP session. A field person on a 390×844 phone enrols from the invitation —
 * the TOTP QR code and the tappable otpauth link are shown, the recovery codes once — creates a
 * passkey, signs out, and signs back in with the passkey alone, on the field app and on the
 * console's sign-in page; the sign-ins are in the audit trail with their method.
 *
 * The pages are opened at `http://localhost:PORT`: WebAuthn refuses an IP address as relying
 * party ID, and the relying party is the origin the service was reached at (a trusted loopback
 * host here; PUBLIC_BASE_URL in production).
 */
import { and, desc, eq } from "drizzle-orm";
import { generate } from "otplib";
import { describe, expect, it } from "vitest";
import { getDb } from "../../lib/db/client.js";
import { auditLog, staffMembers } from "../../lib/db/schema/index.js";
import { useTestDatabase } from "../helpers/db.js";
import { invitationCodeFor } from "../helpers/staff.js";
import {
  CHROMIUM,
  newWatchedContext,
  shot,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

warnIfNoChromium("tests/e2e/passkeys.test.ts");

// Timeouts: Chromium is another process; 240 s for the whole walk guards against a hang on a
// loaded 2-core machine, it claims no speed (page waits 30 s, expect.poll 20 s: browser.ts).
describe.skipIf(!CHROMIUM)("passkeys on the field app", () => {
  useTestDatabase();
  const env = useBrowserHost("ptes-passkeys-e2e-");
  const watch: Watch = { problems: [], requests: [] };

  it("enrols with the QR code, creates a passkey, signs in with it at 390×844 and on the console", async () => {
    const base = env.host.url.replace("127.0.0.1", "localhost");
    const email = `pia.${Date.now()}@staff.example.com`;
    const invited = await env.api("POST", "/api/staff", env.admin, {
      action: "invite",
      email,
      role: "field",
      display_name: "Pia",
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    const code = await invitationCodeFor(email);

    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      locale: "en-CA",
    });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable", { enableUI: false });
    const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    // Enrolment: the QR code and the tappable otpauth link.
    await page.goto(`${base}/field/#/accept?code=${code}`);
    await page.getByRole("heading", { level: 1, name: "Join the field team" }).waitFor();
    await page.getByLabel("Display name").fill("Pia P.");
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByRole("button", { name: "Continue" }).click();
    await page
      .getByRole("heading", { level: 1, name: "Add the account to your authenticator app" })
      .waitFor();
    const qr = page.getByTestId("totp-qr");
    await qr.waitFor();
    expect(await qr.isVisible()).toBe(true);
    expect(await qr.getAttribute("alt")).toMatch(/QR code/);
    // The image decoded (a broken image has no natural size) and is big enough to scan.
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const box = await qr.boundingBox();
    expect(box!.width).toBeGreaterThanOrEqual(180);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    const link = page.getByRole("link", { name: "Open in the authenticator app" });
    expect(await link.getAttribute("href")).toMatch(/^otpauth:\/\/totp\/.+secret=/);
    await shot(page, env.shots, "field-enrol-qr.png");
    const secret = await page.getByLabel("Secret key").inputValue();
    await page.getByLabel("Authenticator code").fill(await generate({ secret }));
    await page.getByRole("button", { name: "Confirm and sign in" }).click();

    // The recovery codes, once; then a passkey of this phone.
    await page.getByRole("heading", { level: 1, name: "Save your recovery codes" }).waitFor();
    expect(await page.getByTestId("recovery-codes").locator("li").count()).toBe(10);
    await page.getByRole("button", { name: "Create a passkey on this device" }).click();
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    expect(credentials[0]!.rpId).toBe("localhost");
    // A member with a passkey is not asked to create one.
    expect(await page.getByTestId("passkey-banner").count()).toBe(0);

    // Signed out, the phone signs in with the passkey alone: no e-mail, password or code typed.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { level: 1, name: "Field sign-in", exact: true }).waitFor();
    await shot(page, env.shots, "field-sign-in-passkey.png");
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
    expect(await page.evaluate(() => document.cookie)).toBe("");
    const after = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(after.credentials[0]!.signCount).toBeGreaterThan(credentials[0]!.signCount);

    // The console's sign-in page takes the same passkey (a field person is then sent to /field/).
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { level: 1, name: "Field sign-in", exact: true }).waitFor();
    await page.goto(`${base}/operator/`);
    await page.getByRole("heading", { level: 1, name: "Operator sign-in", exact: true }).waitFor();
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await page.getByRole("heading", { level: 1, name: "My tasks", exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/field/");

    const db = await getDb();
    const [member] = await db.select().from(staffMembers).where(eq(staffMembers.email, email));
    const signIns = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "staff.sign_in"), eq(auditLog.targetId, member!.id)))
      .orderBy(desc(auditLog.id));
    expect(signIns.map((r) => (r.details as { method: string }).method)).toEqual(["passkey", "passkey"]);
    await context.close();
  }, 240_000);

  it("loaded every page without console errors or CSP violations", () => {
    expect(watch.problems).toEqual([]);
  });
});
