/**
 * The pay page (/pay/#task_id=…&pay_token=…; issue 28 item 2, the page an MCP URL elicitation
 * opens), Chromium via playwright-core against the local host (vercel.json's CSP): a person sees
 * the exact USDC amount, the price, the deadline and the wallets of an approved task, in English
 * on a phone and in French on a desktop; once the task is paid the page says so; a link whose
 * token is not valid says to ask for a new one. Skipped (with a message) when no Chromium binary
 * exists; `UPDATE_SCREENSHOTS=1` writes the screenshots to docs/screenshots/.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { payPageUrl } from "../../lib/payments/pay-link.js";
import { getTaskOrThrow } from "../../lib/tasks/state/apply-transition.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { validTask } from "../helpers/tasks.js";
import {
  CHROMIUM,
  newWatchedContext,
  shot,
  useBrowserHost,
  type Watch,
  warnIfNoChromium,
} from "./browser.js";

warnIfNoChromium("tests/e2e/pay-page.test.ts");

const WALLET = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
Object.assign(process.env, {
  ETHEREUM_RPC_URL: "http://127.0.0.1:9/unused",
  ETHEREUM_CHAIN_ID: "31337",
  ETHEREUM_USDC_CONTRACT: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  ETHEREUM_WALLET: WALLET.toLowerCase(),
});
resetConfig();

// Timeouts: each test drives Chromium (another process) through pages and API round trips, up to
// ~10 s on an idle machine; 180 s a test (30 s a page wait, 20 s an expect.poll: browser.ts)
// leaves room for a loaded 2-core machine. They guard against a hang, they claim no speed.
describe.skipIf(!CHROMIUM)("the pay page", () => {
  useTestDatabase();
  const env = useBrowserHost("ptes-e2e-pay-");
  const watch: Watch = { problems: [], requests: [] };
  let taskId: string;
  let fragment: string;
  let amount: string;

  beforeAll(async () => {
    const key = await makeKey(["audit_only", "task_create"]);
    const submitted = await env.api("POST", "/api/submit-task", key, validTask);
    taskId = submitted.body.task_id;
    const approved = await env.api("POST", "/api/task-review", env.admin, {
      task_id: taskId,
      action: "approve",
    });
    expect(approved.status).toBe(200);
    amount = approved.body.payment.payment_usdc;
    fragment = new URL((await payPageUrl(await getTaskOrThrow(taskId))).url).hash;
  });

  it("shows the exact amount, the deadline and the wallet on a phone, in English", async () => {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 390, height: 844 },
      locale: "en-CA",
    });
    const page = await context.newPage();
    await page.goto(`${env.host.url}/pay/${fragment}`);
    await page.getByRole("heading", { level: 1, name: `Pay for task ${taskId}` }).waitFor();
    // The heading comes from the URL at once; the payment once the page's read answers.
    await page.locator("#sec-pay").waitFor({ state: "visible" });
    await expect(page.locator("#amount").textContent()).resolves.toBe(`${amount} USDC`);
    await expect(page.locator("#amount-cad").textContent()).resolves.toMatch(/\$/);
    await expect(page.locator("#deadline").textContent()).resolves.toMatch(/\d{4}/);
    await expect(page.locator("#networks").textContent()).resolves.toContain("31337");
    await expect(page.locator("#networks").textContent()).resolves.toMatch(new RegExp(WALLET, "i"));
    await expect(page.locator("#status").textContent()).resolves.toMatch(/Waiting for the payment/);
    // No horizontal scroll on a phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, env.shots, "pay-page-en-390.png", true);
    await context.close();
  }, 180_000);

  it("speaks French on a desktop, then says the task is paid", async () => {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 1280, height: 800 },
      locale: "fr-CA",
    });
    const page = await context.newPage();
    await page.goto(`${env.host.url}/pay/${fragment}`);
    await page.getByRole("heading", { level: 1, name: `Payer la tâche ${taskId}` }).waitFor();
    await page.locator("#sec-pay").waitFor({ state: "visible" });
    await expect(page.getByRole("heading", { level: 2 }).first().textContent()).resolves.toBe(
      "Envoyez exactement ce montant, une fois",
    );
    await shot(page, env.shots, "pay-page-fr-1280.png");

    const paid = await env.api("POST", "/api/task-payment", env.admin, {
      task_id: taskId,
      tx_hash: `0x${"cd".repeat(32)}`,
      network: "ethereum",
    });
    expect(paid.status).toBe(200);
    await page.reload();
    await page.getByRole("heading", { level: 2, name: "Payée" }).waitFor();
    await expect(page.locator("#done-facts").textContent()).resolves.toContain(`0x${"cd".repeat(32)}`);
    // The status in the page's language, from the common dictionary.
    await expect(page.locator("#done-facts dd").first().textContent()).resolves.toBe("payée");
    expect(await page.locator("#sec-pay").isHidden()).toBe(true);
    await context.close();
  }, 180_000);

  it("asks for a new link when the token is not valid", async () => {
    const context = await newWatchedContext(env.browser, watch, {
      viewport: { width: 390, height: 844 },
      locale: "en-CA",
    });
    const page = await context.newPage();
    await page.goto(`${env.host.url}/pay/#task_id=${encodeURIComponent(taskId)}&pay_token=not.a.token`);
    await page
      .getByText("This link is not valid or has expired. Ask your assistant for a new one.")
      .waitFor();
    expect(await page.locator("#sec-pay").isHidden()).toBe(true);
    await context.close();
    expect(watch.problems).toEqual([]);
  }, 180_000);
});
