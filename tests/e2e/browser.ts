/**
 * Shared launch settings of the browser tests (the same as tests/e2e/operator-console.test.ts):
 * Debian's Chromium driven by playwright-core, skipped with a message when no binary exists.
 * `UPDATE_SCREENSHOTS=1` writes screenshots to docs/screenshots/ (else to a temp dir).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";

export const ROOT = path.resolve(import.meta.dirname, "../..");

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

/** A screenshot without the transient status toast. */
export async function shot(page: Page, dir: string, name: string, fullPage = false) {
  await page.evaluate(() => document.getElementById("status")?.classList.remove("visible"));
  await page.screenshot({ path: path.join(dir, name), fullPage, scale: "css", animations: "disabled" });
}
