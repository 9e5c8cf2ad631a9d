/**
 * The consent step in a real browser (Debian's Chromium through playwright-core; skipped without
 * it): the MCP SDK's `auth()` yields the authorization URL, the browser opens it, lands on the
 * consent page (in French for a French browser), the owner signs in and approves, the browser is
 * sent back to the client's loopback redirect URI with a code, and the SDK exchanges it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import type { LocalHost } from "../../scripts/local-host.js";
import { openLinkedAccount } from "../accounts/helpers.js";
import { CHROMIUM, CHROMIUM_ARGS, warnIfNoChromium } from "../e2e/browser.js";
import { useTestDatabase } from "../helpers/db.js";
import { startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { metadataDocument, startLoopback, TestOAuthProvider } from "./helpers.js";

useTestDatabase();
warnIfNoChromium("tests/oauth/oauth-browser.test.ts");

let host: LocalHost;
let loopback: Awaited<ReturnType<typeof startLoopback>>;
let browser: Browser | undefined;
const OWNER = "browser-owner@example.com";
const PASSWORD = "owner password 123";

beforeAll(async () => {
  if (!CHROMIUM) return;
  process.env.ALLOW_PRIVATE_CALLBACKS = "true";
  resetConfig();
  host = await startTestHost();
  process.env.PUBLIC_BASE_URL = host.url;
  resetConfig();
  loopback = await startLoopback({
    "/client.json": (_req, res, base) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(metadataDocument(base, "/client.json", { client_name: "Assistant Test" })));
    },
    "/callback": (_req, res) => {
      res.setHeader("content-type", "text/plain");
      res.end("back at the client");
    },
  });
  await openLinkedAccount(await makeKey(["audit_only", "task_create"], OWNER));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await loopback?.close();
  await host?.close();
  delete process.env.ALLOW_PRIVATE_CALLBACKS;
  delete process.env.PUBLIC_BASE_URL;
  resetConfig();
});

describe.skipIf(!CHROMIUM)("consent in a browser", () => {
  it("signs the owner in, shows the client, scopes and account in French, and returns a code the SDK exchanges", async () => {
    const clientId = `https://${loopback.base}/client.json`;
    const provider = new TestOAuthProvider(`http://${loopback.base}/callback`, clientId, "Assistant Test");
    const serverUrl = new URL(`${host.url}/mcp`);
    expect(await auth(provider, { serverUrl })).toBe("REDIRECT");

    const context = await browser!.newContext({ locale: "fr-CA" });
    // Each wait below only guards against a hang: 60 s, far above a page step of a browser process on
    // a busy 2-core machine (a few seconds at worst).
    context.setDefaultTimeout(60_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    await page.goto(provider.authorizationUrl!.href);
    await page.waitForURL(/\/oauth\/consent\?uid=/);
    await expect
      .poll(() => page.textContent("#login-intro"), { timeout: 60_000 })
      .toContain("Assistant Test veut agir sur votre compte");
    await page.fill("#email", OWNER);
    await page.fill("#password", PASSWORD);
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("#sec-consent:not([hidden])");
    expect(await page.textContent("#consent-title")).toBe("Assistant Test demande l'accès à votre compte");
    expect(await page.textContent("#consent-account")).toContain(OWNER);
    expect(await page.textContent("#consent-client")).toContain(clientId);
    const scopes = await page.textContent("#consent-scopes");
    expect(scopes).toContain("(task_create)");
    expect(scopes).toContain("Soumettre des tâches facturées à ce compte");
    const dir = process.env.UPDATE_SCREENSHOTS
      ? path.resolve("docs/screenshots")
      : mkdtempSync(path.join(tmpdir(), "oauth-"));
    await page.screenshot({ path: path.join(dir, "oauth-consent-fr.png"), fullPage: true });
    await page.click("#approve");
    await page.waitForURL(new RegExp(`^http://${loopback.base.replace(/\./g, "\\.")}/callback\\?`));
    const callback = new URL(page.url());
    expect(callback.searchParams.get("error")).toBeNull();
    const code = callback.searchParams.get("code");
    expect(code).toBeTruthy();
    expect(problems).toEqual([]);
    await context.close();

    expect(await auth(provider, { serverUrl, authorizationCode: code! })).toBe("AUTHORIZED");
    const client = new Client({ name: "assistant-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(serverUrl, { authProvider: provider }));
    const mine = await client.callTool({ name: "list_my_tasks", arguments: {} });
    expect(mine.isError).toBeFalsy();
    await client.close();
    // A browser process (launch, pages, screenshot) beside the local host: ~5 s alone, several
    // times that on a busy 2-core machine; the limit only guards against a hang.
  }, 180_000);
});
