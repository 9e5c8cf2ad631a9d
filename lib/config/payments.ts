/**
 * Payments: the CAD→USD rate, the USDC networks (RPC, contract, wallet, confirmations), the payment checker and the reuse of payment amounts.
 * One entry a variable, with its default; part of the configuration schema (lib/config/load.ts).
 */
import { z } from "zod";
import { int, num, optionalString, optionalUrl } from "./values.js";

/** An optional boolean: `true/1/yes`, `false/0/no`; unset or blank: undefined (a derived default applies). */
const optionalBool = () =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .optional()
    .transform((v) => (v === undefined || v === "" ? undefined : v === "true" || v === "1" || v === "yes"));

/** Payments variables of the configuration schema, built on first use (lib/config/load.ts). */
export const paymentsSettings = () => ({
  /**
   * CAD→USD rate, USD per 1 CAD: the rate of the `fixed` provider, and with `valet` the
   * rate shown by estimates when no fresh live rate exists (approval never uses it there).
   */
  CAD_USD_FALLBACK_RATE: num(0.71, 0.1, 5),
  /** Exchange-rate provider: `fixed` (CAD_USD_FALLBACK_RATE) or `valet` (Bank of Canada). Unset: `valet` in production, `fixed` otherwise. */
  EXCHANGE_RATE_PROVIDER: z.enum(["fixed", "valet"]).optional(),
  /** Base URL of the Bank of Canada Valet API (series FXUSDCAD). */
  VALET_URL: z.url().default("https://www.bankofcanada.ca/valet"),
  /** Timeout of one Valet request, ms. */
  EXCHANGE_RATE_TIMEOUT_MS: int(3000, 100, 30_000),
  /** A cached live rate is re-fetched after this many minutes (Valet publishes once per business day). */
  EXCHANGE_RATE_REFRESH_MINUTES: int(60, 1, 1440),
  /** Hours after its `as_of` past which a live rate is stale: approval is refused (503 EXCHANGE_RATE_UNAVAILABLE). */
  EXCHANGE_RATE_MAX_AGE_HOURS: int(120, 1, 24 * 30),

  /** Ethereum (layer 1) JSON-RPC URL; the network accepts payments when this and ETHEREUM_WALLET are set. */
  ETHEREUM_RPC_URL: optionalUrl(),
  /** Ethereum chain id (1 = mainnet). */
  ETHEREUM_CHAIN_ID: int(1, 1),
  /** USDC contract on Ethereum. */
  ETHEREUM_USDC_CONTRACT: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address")
    .default("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"),
  /** Service wallet receiving USDC on Ethereum. */
  ETHEREUM_WALLET: optionalString().pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address")
      .optional(),
  ),
  /** When an Ethereum block counts as confirmed: `finalized`, `safe`, `latest` or a number of confirmations (≥ 1). */
  ETHEREUM_CONFIRMATIONS: z
    .string()
    .regex(/^(finalized|safe|latest|[1-9][0-9]{0,3})$/, "finalized, safe, latest or 1-9999")
    .default("finalized"),
  /** First Ethereum block to scan when no cursor exists; unset: the confirmed head minus CHECKER_RESCAN_BLOCKS. */
  ETHEREUM_START_BLOCK: optionalString().pipe(z.coerce.number<string>().int().min(0).optional()),
  /** Base (layer 2) JSON-RPC URL; the network accepts payments when this and BASE_WALLET are set. */
  BASE_RPC_URL: optionalUrl(),
  /** Base chain id (8453 = mainnet). */
  BASE_CHAIN_ID: int(8453, 1),
  /** USDC contract on Base. */
  BASE_USDC_CONTRACT: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address")
    .default("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
  /** Service wallet receiving USDC on Base. */
  BASE_WALLET: optionalString().pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address")
      .optional(),
  ),
  /** When a Base block counts as confirmed: `finalized`, `safe`, `latest` or a number of confirmations (≥ 1). */
  BASE_CONFIRMATIONS: z
    .string()
    .regex(/^(finalized|safe|latest|[1-9][0-9]{0,3})$/, "finalized, safe, latest or 1-9999")
    .default("safe"),
  /** First Base block to scan when no cursor exists; unset: the confirmed head minus CHECKER_RESCAN_BLOCKS. */
  BASE_START_BLOCK: optionalString().pipe(z.coerce.number<string>().int().min(0).optional()),
  /** Largest block range of one eth_getLogs request (RPC providers cap it). */
  CHECKER_BLOCK_RANGE: int(1000, 1, 100_000),
  /** Most new blocks one checker run scans per network (a long backlog is caught up over several runs). */
  CHECKER_MAX_BLOCKS_PER_RUN: int(20_000, 1, 10_000_000),
  /** Blocks below the cursor re-scanned on every run to catch reorgs. */
  CHECKER_RESCAN_BLOCKS: int(12, 0, 10_000),
  /** Payments the checker records per database transaction (two such batches run at once). */
  CHECKER_PAY_BATCH: int(1000, 1, 10_000),
  /** Timeout of one JSON-RPC request of the checker, ms (no retries: the next run retries). */
  CHECKER_RPC_TIMEOUT_MS: int(10_000, 100, 60_000),
  /**
   * Hours during which a released USDC amount (its task paid, expired or cancelled) is given
   * to no other task, so a late transfer meant for the old task can never pay a new one
   * (0: reusable at once; the block-time rule still applies). Default 168 (7 days).
   */
  AMOUNT_REUSE_COOLDOWN_HOURS: int(168, 0, 24 * 366),

  /**
   * Hours after a task's completion during which its owner may open a dispute (POST
   * /api/task-dispute; issue 27). Published in GET /api/capabilities `recourse` and each catalog
   * contract.
   */
  DISPUTE_WINDOW_HOURS: int(72, 1, 24 * 90),
  /**
   * SLA credit of a paid task completed or failed after its execution deadline: this percent of
   * its price per full 24 h late (api/cron/sla-credits; issue 27).
   */
  SLA_CREDIT_PERCENT: int(10, 0, 100),
  /** Most an SLA credit may reach, percent of the task's price. */
  SLA_CREDIT_CAP_PERCENT: int(50, 0, 100),

  /**
   * x402 payments at POST /api/task-pay and the MCP tool `pay_task` (docs/x402.md). Unset: on
   * when X402_RELAYER_PRIVATE_KEY or X402_FACILITATOR_URL is set (`x402Enabled`). The production
   * profile refuses `true` without one of them.
   */
  X402_ENABLED: optionalBool(),
  /**
   * Private key (0x + 64 hex) of the relayer that submits `transferWithAuthorization` (EIP-3009)
   * and pays its gas, in-process (x402 `exact` scheme). Needs ETH on every configured network.
   */
  X402_RELAYER_PRIVATE_KEY: optionalString().pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, "a 0x-prefixed 32-byte hex private key")
      .optional(),
  ),
  /** An x402 facilitator (`POST /verify`, `POST /settle`); when set it verifies and settles instead of the relayer. */
  X402_FACILITATOR_URL: optionalUrl(),
  /**
   * Milliseconds the relayer waits for its settlement's receipt before answering "in flight" (202,
   * x402 `settlement_pending`); keep it below the platform's request deadline.
   */
  X402_RECEIPT_WAIT_MS: int(20_000, 100, 120_000),
  /** Seconds a signed x402 authorization may take to settle (`maxTimeoutSeconds` of the requirements). */
  X402_MAX_TIMEOUT_SECONDS: int(120, 10, 3600),
  /** EIP-712 domain `name` of the USDC contract on Ethereum (x402 `extra.name`; USDC: "USD Coin"). */
  ETHEREUM_USDC_EIP712_NAME: z.string().min(1).default("USD Coin"),
  /** EIP-712 domain `version` of the USDC contract on Ethereum (x402 `extra.version`; USDC: "2"). */
  ETHEREUM_USDC_EIP712_VERSION: z.string().min(1).default("2"),
  /** EIP-712 domain `name` of the USDC contract on Base (x402 `extra.name`; USDC: "USD Coin"). */
  BASE_USDC_EIP712_NAME: z.string().min(1).default("USD Coin"),
  /** EIP-712 domain `version` of the USDC contract on Base (x402 `extra.version`; USDC: "2"). */
  BASE_USDC_EIP712_VERSION: z.string().min(1).default("2"),
  /** Relayer balance, ETH, below which GET /api/status reports the network's x402 relayer degraded. */
  X402_RELAYER_MIN_BALANCE_ETH: num(0.005, 0, 1_000_000),
});
