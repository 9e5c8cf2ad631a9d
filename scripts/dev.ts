/**
 * `npm run dev`: the development profile in one command, on top of `npm start` (scripts/serve.ts).
 *
 * - Reads `.env` (ENV_FILE), then turns on, unless set otherwise: ALLOW_PRIVATE_CALLBACKS=true
 *   (http:// and loopback webhooks/callbacks) and OUTBOX_KICK=true (webhooks and e-mails go out
 *   right after the change that causes them); the mail worker also runs every second, so account
 *   e-mails (verification, reset) arrive at once too. Refuses NODE_ENV=production.
 * - Starts two local EVM chains in this process (Hardhat as a library, scripts/dev/local-chain.ts),
 *   deploys the committed test USDC (contracts/TestUSDC.json, 6 decimals) on each, and configures
 *   them as the `ethereum` and `base` payment networks (1 confirmation, scanned from block 0),
 *   receiving on Hardhat account #3; a payer (Hardhat account #1, unlocked) gets 1,000,000 test
 *   USDC on each. The banner prints the payer's private key (Hardhat's public test key, local
 *   chains only), which an x402 client signs with (docs/x402.md). The chains live in memory and restart empty each run, with fresh chain ids, so
 *   the checker's cursors of the previous run are dropped at start. Set DEV_CHAINS=false, or set
 *   ETHEREUM_RPC_URL / BASE_RPC_URL yourself, to skip them.
 * - Prints a banner: the URLs, the relaxed settings, the payment networks (or a warning), on a
 *   database without any API key a one-time bootstrap admin key (stored as a hash like any key, for
 *   automation), and on an empty staff table a ready owner sign-in for the console
 *   (DEV_OWNER_EMAIL, `owner@localhost.test` by default, enrolled directly: a random password and
 *   a TOTP secret shown once; `npm run staff:totp -- <secret>` prints the current code).
 * - `npm run dev:pay -- <task_id> [--network base]` pays a task from the payer (scripts/dev-pay.ts).
 *   x402 is on: Hardhat account #4 relays (X402_RELAYER_PRIVATE_KEY, unless set);
 *   `npm run dev:pay -- <task_id> --x402 --key <the task's key>` (or `--access-token`) pays
 *   through POST /api/task-pay.
 * - Mounts the mail viewer at /dev/mail (scripts/local-control.ts).
 */
import { count, inArray } from "drizzle-orm";
import { getConfig, relaxedSettings } from "../lib/config.js";
import { getDb } from "../lib/db/client.js";
import { apiKeys, chainCursors } from "../lib/db/schema/index.js";
import { createApiKey } from "../lib/keys/create-api-key.js";
import { describeError } from "../lib/log-error.js";
import { sendQueuedEmails } from "../lib/mail/send-queued-emails.js";
import { networkConfigs } from "../lib/payments/networks.js";
import { enrollDirectly, noStaffYet } from "../lib/staff/bootstrap.js";
import { ACCOUNTS, DEV_KEYS, type LocalChain, startLocalChain } from "./dev/local-chain.js";
import { loadEnvFile, serve } from "./serve.js";

/** How often the development profile runs the mail worker, ms. */
const MAIL_PUMP_MS = 1000;

/** Test USDC minted to the payer on each local chain, micro-USDC (1,000,000 USDC). */
const PAYER_FUNDS = 1_000_000_000_000n;

/** A fresh chain id for one run, unlikely to be reused by the next (tx hashes then differ too). */
function freshChainId(): number {
  return 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
}

async function startChains(): Promise<LocalChain[]> {
  const chains = await Promise.all([startLocalChain(freshChainId()), startLocalChain(freshChainId())]);
  const names = ["ETHEREUM", "BASE"] as const;
  for (const [i, chain] of chains.entries()) {
    const token = await chain.deployToken();
    await chain.mint(token, ACCOUNTS.payer, PAYER_FUNDS);
    const prefix = names[i]!;
    process.env[`${prefix}_RPC_URL`] = chain.url;
    process.env[`${prefix}_CHAIN_ID`] = String(chain.chainId);
    process.env[`${prefix}_USDC_CONTRACT`] = token;
    process.env[`${prefix}_WALLET`] = ACCOUNTS.devWallet;
    process.env[`${prefix}_CONFIRMATIONS`] = "1";
    process.env[`${prefix}_START_BLOCK`] = "0";
  }
  // x402 (docs/x402.md): Hardhat account #4 relays transferWithAuthorization and pays the gas.
  process.env.X402_RELAYER_PRIVATE_KEY ??= DEV_KEYS.relayer;
  return chains;
}

async function main(): Promise<void> {
  loadEnvFile();
  if (process.env.NODE_ENV === "production") throw new Error("npm run dev refuses NODE_ENV=production");
  process.env.ALLOW_PRIVATE_CALLBACKS ??= "true";
  process.env.OUTBOX_KICK ??= "true";
  const wantChains =
    process.env.DEV_CHAINS !== "false" && !process.env.ETHEREUM_RPC_URL && !process.env.BASE_RPC_URL;
  const chains = wantChains ? await startChains() : [];
  let mailPump: NodeJS.Timeout | undefined;
  const stopChains = async () => {
    clearInterval(mailPump);
    await Promise.all(chains.map((c) => c.close()));
  };
  try {
    await serve({
      dev: true,
      async prepare() {
        if (!chains.length) return;
        const db = await getDb();
        await db.delete(chainCursors).where(inArray(chainCursors.network, ["ethereum", "base"]));
      },
      banner: (url) => banner(url, chains.length > 0),
      onStop: stopChains,
    });
    // E-mails queued outside a task event (account verification, password reset) are otherwise
    // sent by the next every-minute cron: here the mail worker also runs every second.
    let pumping = false;
    mailPump = setInterval(() => {
      if (pumping) return;
      pumping = true;
      sendQueuedEmails()
        .catch((error: unknown) => console.error(`[mail] ${describeError(error)}`))
        .finally(() => {
          pumping = false;
        });
    }, MAIL_PUMP_MS);
  } catch (error) {
    await stopChains();
    throw error;
  }
}

/** The startup banner's lines (the listening line is printed before them). */
async function banner(url: string, localChains: boolean): Promise<string[]> {
  const config = getConfig();
  const lines = [
    "",
    "Development profile (npm run dev):",
    `  API            ${url}/api/capabilities`,
    `  Operator       ${url}/operator/`,
    `  Field app      ${url}/field/`,
    `  Client         ${url}/client/`,
    `  MCP            ${url}/api/mcp`,
    `  OpenAPI        ${url}/openapi.json   (agents: ${url}/llms.txt)`,
    `  Mail viewer    ${url}/dev/mail`,
    "  Relaxed settings:",
    ...relaxedSettings(config).map((l) => `    - ${l}`),
  ];
  const networks = networkConfigs(config);
  if (networks.length === 0) {
    lines.push("  WARNING: no payment network configured: USDC tasks cannot be paid.");
  } else {
    lines.push("  Payment networks:");
    for (const n of networks) {
      lines.push(
        `    - ${n.name}: chain ${n.chainId}, RPC ${n.rpcUrl}, USDC ${n.usdcContract}, wallet ${n.wallet}`,
      );
    }
    if (localChains) {
      lines.push(
        `  Funded payer   ${ACCOUNTS.payer} (1,000,000 test USDC on each local chain)`,
        `    private key  ${DEV_KEYS.payer}`,
        "                 (Hardhat's public test account #1: for these local chains only, never for real funds;",
        "                 PAYER_PRIVATE_KEY of docs/x402.md's client and examples/x402-agent.ts)",
        "                 pay a task: npm run dev:pay -- <task_id> [--network base]",
      );
    }
  }
  const db = await getDb();
  const [{ keys }] = (await db.select({ keys: count() }).from(apiKeys)) as [{ keys: number }];
  if (keys === 0) {
    const key = await createApiKey({
      name: "bootstrap admin (npm run dev)",
      contact: config.OPERATOR_EMAIL,
      scopes: ["admin", "audit_only", "task_create", "task_cancel", "billing_read"],
      trusted: true,
      ip: "host",
    });
    lines.push(
      `  Bootstrap admin key (empty database; shown once, stored hashed): ${key.api_key}`,
      "                 more keys, while this runs: npm run admin:create-key -- --name N --contact E",
    );
  }
  if (await noStaffYet()) {
    const owner = await enrollDirectly({
      email: process.env.DEV_OWNER_EMAIL || "owner@localhost.test",
      role: "owner",
      displayName: "Owner (dev)",
    });
    lines.push(
      "  Console owner (empty staff table; shown once, stored hashed):",
      `    e-mail       ${owner.staff.email}`,
      `    password     ${owner.password}`,
      `    TOTP secret  ${owner.totpSecret}`,
      `    otpauth URI  ${owner.otpauthUri}`,
      `    a code now:  npm run staff:totp -- ${owner.totpSecret}`,
      "    more staff:  npm run admin:create-staff -- --email E --role reviewer (or invite in the console)",
    );
  }
  lines.push(`  Stop: Ctrl-C, or kill ${process.pid}`, "");
  return lines;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
