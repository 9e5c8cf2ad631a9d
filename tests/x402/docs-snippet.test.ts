/**
 * docs/x402.md's client snippet, run exactly as printed (issue 42 item 7): the fenced block marked
 * `x402-client-snippet` is taken from the Markdown, written to a file and run with `npx tsx` (a
 * child process, @x402/fetch and @x402/evm 2.27) against the started host and the two local chains.
 * Besides: on the client's default spend controls (known assets only, at most $1 a payment) the
 * same payment is refused before anything is signed, which is why the snippet lists our USDC
 * contracts; and the 402's `resource.description` tells such an agent so.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { ExactEvmScheme } from "@x402/evm";
import { wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { formatUsdc } from "../../lib/money.js";
import { DEV_KEYS } from "../../scripts/dev/local-chain.js";
import { useTestDatabase } from "../helpers/db.js";
import { ROOT } from "../helpers/host.js";
import {
  approvedTask,
  decodeRequired,
  pay,
  payer,
  payUrl,
  recordedFor,
  useX402World,
  world,
} from "./chains.js";

const run = promisify(execFile);

useTestDatabase();
useX402World();

/** The marker on the snippet's first line. */
const MARKER = "// x402-client-snippet";

/** The fenced TypeScript block of `markdown` whose first line is {@link MARKER}, as printed. */
function snippetOf(markdown: string): string {
  const blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const found = blocks.filter((b) => b.startsWith(MARKER));
  expect(found, `one \`\`\`ts block starting with ${MARKER} in docs/x402.md`).toHaveLength(1);
  return found[0]!;
}

// Under node_modules (git-ignored), so that the snippet's imports resolve to the project's packages.
const scratch = path.join(ROOT, "node_modules", ".cache", `x402-docs-snippet-${process.pid}`);

beforeAll(() => {
  // payment.x402_url is built on PUBLIC_BASE_URL: the started host's.
  process.env.PUBLIC_BASE_URL = world.host.url;
  resetConfig();
  mkdirSync(scratch, { recursive: true });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("docs/x402.md's client", () => {
  it("pays an approved task as printed, with the payer key npm run dev prints", async () => {
    const { id, micro } = await approvedTask();
    // The point of the snippet's spend controls: the task costs more than the client's default $1.
    expect(micro > 1_000_000n).toBe(true);
    const file = path.join(scratch, "pay.mts");
    writeFileSync(file, snippetOf(readFileSync(path.join(ROOT, "docs", "x402.md"), "utf8")));
    const { stdout } = await run("npx", ["tsx", file], {
      env: {
        ...process.env,
        BASE: world.host.url,
        API_KEY: world.agent,
        TASK_ID: id,
        PAYER_PRIVATE_KEY: DEV_KEYS.payer,
      },
      cwd: ROOT,
    });
    expect(stdout).toMatch(/HTTP 200: paid, transaction 0x[0-9a-f]{64} on eip155:31337/);
    const r = await recordedFor(id);
    expect(r.task.status).toBe("paid");
    expect(r.transfers).toHaveLength(1);
    // npx, tsx compiling the snippet and its imports, then an on-chain payment: a few seconds idle;
    // sized for a loaded 2-core machine, a guard against a hang only.
  }, 180_000);

  it("on the default spend controls, the official client refuses our 402 before signing", async () => {
    const { id } = await approvedTask();
    const defaults = wrapFetchWithPaymentFromConfig(fetch, {
      schemes: [{ network: "eip155:*", client: new ExactEvmScheme(payer) }],
    });
    await expect(
      defaults(payUrl(id), { method: "POST", headers: { "x-api-key": world.agent } }),
    ).rejects.toThrow(/spendControls/);
    expect((await recordedFor(id)).task.status).toBe("accepted_pending_payment");
  });

  it("the 402's resource.description names the amount and, above $1, the spend controls to change", async () => {
    const { id, micro } = await approvedTask();
    const required = decodeRequired(await pay(id)) as ReturnType<typeof decodeRequired> & {
      resource: { description: string };
    };
    expect(required.resource.description).toContain(`Payment of task ${id}: ${formatUsdc(micro)} USDC`);
    expect(required.resource.description).toContain(
      "more than the $1 a payment that x402 clients allow by default",
    );
    expect(required.resource.description).toContain("spendControls.allowedAssets");
    expect(required.resource.description).toContain(`maxAmountPerPayment of at least "${micro}"`);
  });
});
