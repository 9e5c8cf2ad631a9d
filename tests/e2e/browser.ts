/**
 * Shared settings of the browser tests (tests/e2e/*.test.ts): Debian's Chromium driven by
 * playwright-core, skipped with a message when no binary exists, against the local host
 * (tests/helpers/host.ts) with an admin key (for the API calls that set a scene); the operator
 * pages are signed into with staff accounts (`signInStaff`). `UPDATE_SCREENSHOTS=1` writes
 * screenshots to docs/screenshots/ (else to a temp dir).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, vi } from "vitest";
import type { LocalHost } from "../../scripts/local-host.js";
import { ROOT, startTestHost } from "../helpers/host.js";
import { makeKey } from "../helpers/keys.js";
import { freshTotp, type TestStaff } from "../helpers/staff.js";

export { ROOT };

/** Debian's binary (faster to launch than the /usr/bin wrapper script), or CHROMIUM_PATH when set. */
export const CHROMIUM = (
  process.env.CHROMIUM_PATH
    ? [process.env.CHROMIUM_PATH]
    : ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]
).find((p) => existsSync(p));

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Warns once that `file` is skipped when there is no Chromium. */
export function warnIfNoChromium(file: string) {
  if (!CHROMIUM) {
    console.warn(
      `${file} skipped: no Chromium at /usr/lib/chromium/chromium or /usr/bin/chromium ` +
        "or CHROMIUM_PATH (apt-get install chromium; .ci/run does)",
    );
  }
}

/** What a page did: console errors (CSP violations land there), page errors, requests. */
export interface Watch {
  problems: string[];
  requests: { url: string; method: string; headers: Record<string, string> }[];
}

/** A context (America/Toronto) whose pages report to `watch`. */
export async function newWatchedContext(
  browser: Browser,
  watch: Watch,
  options: Parameters<Browser["newContext"]>[0],
): Promise<BrowserContext> {
  const context = await browser.newContext({ timezoneId: "America/Toronto", ...options });
  context.on("page", (page: Page) => {
    page.on("console", (msg) => {
      // Chromium logs every 4xx answer of fetch; those are expected (wrong password, 409, …).
      if (msg.type() === "error" && !msg.text().startsWith("Failed to load resource: the server responded"))
        watch.problems.push(msg.text());
    });
    page.on("pageerror", (error) => watch.problems.push(String(error)));
    page.on("request", (req) =>
      watch.requests.push({ url: req.url(), method: req.method(), headers: req.headers() }),
    );
  });
  return context;
}

/**
 * Opens `pathname` (the console by default) and signs `staff` in through the form: e-mail,
 * password and a fresh authenticator code, or `code` (English or French labels).
 */
export async function signInStaff(
  page: Page,
  base: string,
  staff: Pick<TestStaff, "email" | "password" | "totpSecret">,
  pathname = "/operator/",
  code?: string,
) {
  await page.goto(`${base}${pathname}`);
  await page.getByLabel(/^(E-mail|Courriel)$/).fill(staff.email);
  await page.getByLabel(/^(Password|Mot de passe)$/).fill(staff.password);
  await page
    .getByLabel(/^(Authenticator code|Code d'authentification)$/)
    .fill(code ?? (await freshTotp(staff.totpSecret)));
  await page.getByRole("button", { name: /^(Sign in|Se connecter)$/ }).click();
}

/** A screenshot without the transient status toast. */
export async function shot(page: Page, dir: string, name: string, fullPage = false) {
  await page.evaluate(() => document.getElementById("status")?.classList.remove("visible"));
  await page.screenshot({ path: path.join(dir, name), fullPage, scale: "css", animations: "disabled" });
}

/** What `useBrowserHost` gives a test file once its `beforeAll` has run. */
export interface BrowserHost {
  /** The local host on 127.0.0.1 (a free port). */
  host: LocalHost;
  /** Chromium, headless, with CHROMIUM_ARGS. */
  browser: Browser;
  /** An API key with the `admin` scope. */
  admin: string;
  /** A temp dir removed after the file. */
  tmp: string;
  /** Where screenshots go: docs/screenshots/ with UPDATE_SCREENSHOTS, else `<tmp>/shots`. */
  shots: string;
  /**
   * Calls the API of the host with `key` in `x-api-key` (and a JSON `body` with, unless the
   * file opted out, a fresh `idempotency-key`).
   * @returns the status and the parsed JSON body
   */
  /** A request to the host with `key` (none when undefined). */
  api(
    method: string,
    pathname: string,
    key: string | undefined,
    body?: unknown,
  ): Promise<{ status: number; body: any }>;
}

/**
 * Registers the `beforeAll`/`afterAll` of a browser test file (after `useTestDatabase()`):
 * starts the local host, makes an admin key, a temp dir (`tmpPrefix…`) and the screenshot dir,
 * launches Chromium; afterwards closes them and removes the temp dir.
 * `idempotencyKeys: false` sends API bodies without an `idempotency-key`.
 * It also gives the file's `expect.poll` a 20 s timeout (below).
 */
export function useBrowserHost(tmpPrefix: string, { idempotencyKeys = true } = {}): BrowserHost {
  // `expect.poll` in the browser tests waits for a page to show the outcome of a click: an API
  // round trip, a re-render, a paint. vitest's default (1 s) is what that takes on a busy machine,
  // not a bound of it: 20 s for this file (a guard against a hang; the poll returns as soon as the
  // page is ready).
  vi.setConfig({ expect: { poll: { timeout: 20_000, interval: 50 } } });
  const env = {
    async api(method: string, pathname: string, key: string | undefined, body?: unknown) {
      const res = await fetch(`${env.host.url}${pathname}`, {
        method,
        headers: {
          ...(key === undefined ? {} : { "x-api-key": key }),
          ...(body
            ? {
                "content-type": "application/json",
                ...(idempotencyKeys ? { "idempotency-key": randomUUID() } : {}),
              }
            : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    },
  } as BrowserHost;
  beforeAll(async () => {
    env.host = await startTestHost();
    env.admin = await makeKey(["admin"]);
    env.tmp = mkdtempSync(path.join(tmpdir(), tmpPrefix));
    env.shots = process.env.UPDATE_SCREENSHOTS
      ? path.join(ROOT, "docs/screenshots")
      : path.join(env.tmp, "shots");
    mkdirSync(env.shots, { recursive: true });
    env.browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await env.browser?.close();
    await env.host?.close();
    if (env.tmp) rmSync(env.tmp, { recursive: true, force: true });
  });
  return env;
}
