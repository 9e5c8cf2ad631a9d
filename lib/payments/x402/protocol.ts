/**
 * The x402 vocabulary of the payment step (x402 specification v2 and its v1 legacy form,
 * github.com/coinbase/x402 `specs/x402-specification.md`; docs/x402.md): what a task awaiting
 * payment asks for (`PaymentRequired`: one `exact` requirement per configured network), how a
 * signed payment arrives (HTTP `PAYMENT-SIGNATURE` v2 / `X-PAYMENT` v1, base64 JSON; MCP
 * `_meta["x402/payment"]`), and the EIP-3009 authorization it carries.
 *
 * Units: every amount is USDC micro-units (6 decimals) as a decimal string, as x402 writes them.
 * Networks are CAIP-2 (`eip155:<chain id>`) in v2; v1 names them (`ethereum`, `base`: our
 * configured names, which are x402 v1's names of the two mainnets).
 */
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { type Config, getConfig, publicBaseUrl } from "../../config.js";
import { DomainError } from "../../errors.js";
import { formatUsdc } from "../../money.js";
import { checksumAddress } from "../checksum-address.js";
import { type NetworkConfig, networkConfigs } from "../networks.js";

/** x402 `invalidReason` codes we raise ourselves (the facilitator's own pass through). */
export const X402_REASONS = {
  /** The payment header is not base64 JSON of an x402 payload. */
  invalidPayload: "invalid_payload",
  /** The payload names a network we do not accept. */
  unsupportedNetwork: "unsupported_network",
  /** The payload names another scheme than `exact`. */
  unsupportedScheme: "unsupported_scheme",
  /** @x402/evm ErrAuthorizationValueMismatch. */
  valueMismatch: "invalid_exact_evm_payload_authorization_value_mismatch",
  /** @x402/evm ErrRecipientMismatch. */
  recipientMismatch: "invalid_exact_evm_recipient_mismatch",
  /** @x402/evm ErrValidBeforeExpired. */
  validBefore: "invalid_exact_evm_payload_authorization_valid_before",
  /** @x402/evm ErrValidAfterInFuture. */
  validAfter: "invalid_exact_evm_payload_authorization_valid_after",
  /** @x402/evm ErrEip3009NonceAlreadyUsed. */
  nonceUsed: "invalid_exact_evm_nonce_already_used",
  /** @x402/evm ErrEip3009InsufficientBalance. */
  insufficientBalance: "invalid_exact_evm_insufficient_balance",
  /** @x402/evm ErrTransactionFailed: the settlement transaction reverted. */
  transactionFailed: "invalid_exact_evm_transaction_failed",
} as const;

/** The x402 versions we speak: 2 (`PAYMENT-SIGNATURE`, MCP) and 1 (`X-PAYMENT`). */
export type X402Version = 1 | 2;

/** An EIP-3009 `TransferWithAuthorization` as x402's `exact` EVM payload carries it (decimal strings, hex). */
export interface Eip3009Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  /** USDC micro-units, decimal string. */
  value: string;
  /** Unix seconds, decimal string: valid strictly after. */
  validAfter: string;
  /** Unix seconds, decimal string: valid strictly before. */
  validBefore: string;
  /** bytes32, 0x hex. */
  nonce: `0x${string}`;
}

/** A signed payment as presented, its network resolved to one of ours. */
export interface PresentedPayment {
  version: X402Version;
  network: NetworkConfig;
  /** The v2 form given to the facilitator (a v1 payload is lifted to it, `accepted` = our requirements). */
  payload: PaymentPayload;
  authorization: Eip3009Authorization;
  signature: `0x${string}`;
}

/** The CAIP-2 id of `net` (`eip155:<chain id>`). */
export function caip2(net: Pick<NetworkConfig, "chainId">): `eip155:${number}` {
  return `eip155:${net.chainId}`;
}

/** Whether x402 is on: X402_ENABLED, else on when a relayer key or a facilitator URL is configured. */
export function x402Enabled(config: Config = getConfig()): boolean {
  return config.X402_ENABLED ?? Boolean(config.X402_RELAYER_PRIVATE_KEY || config.X402_FACILITATOR_URL);
}

/** The x402 URL of task `taskId`: where an agent POSTs to pay it (absolute, on PUBLIC_BASE_URL). */
export function x402Url(taskId: string, config: Config = getConfig()): string {
  return `${publicBaseUrl(config)}/api/task-pay?task_id=${encodeURIComponent(taskId)}`;
}

/** The EIP-712 domain (`extra.name`, `extra.version`) of the USDC contract of `net`. */
export function eip712Domain(
  net: NetworkConfig,
  config: Config = getConfig(),
): { name: string; version: string } {
  return net.name === "ethereum"
    ? { name: config.ETHEREUM_USDC_EIP712_NAME, version: config.ETHEREUM_USDC_EIP712_VERSION }
    : { name: config.BASE_USDC_EIP712_NAME, version: config.BASE_USDC_EIP712_VERSION };
}

/**
 * The v2 `exact` requirement of paying `amountMicro` USDC micro-units on `net`: asset = the USDC
 * contract, payTo = our wallet (EIP-55), `maxTimeoutSeconds` = X402_MAX_TIMEOUT_SECONDS, `extra` =
 * the token's EIP-712 domain (x402 `exact` EVM scheme: the client signs EIP-3009 under it).
 */
export function requirementFor(net: NetworkConfig, amountMicro: bigint, config: Config = getConfig()) {
  return {
    scheme: "exact",
    network: caip2(net),
    asset: checksumAddress(net.usdcContract),
    amount: amountMicro.toString(),
    payTo: checksumAddress(net.wallet),
    maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
    extra: eip712Domain(net, config),
  } satisfies PaymentRequirements;
}

/**
 * The largest payment x402 clients make on their default spend controls: `DEFAULT_MAX_AMOUNT_PER_PAYMENT`
 * of @x402/core 2.27 ("$1"), as USDC micro-units. Assets they do not know (a test token) are refused
 * on defaults whatever the amount.
 */
export const X402_DEFAULT_CLIENT_CAP_MICRO = 1_000_000n;

/**
 * The `resource.description` (and v1 `description`) of the payment of task `taskId` of
 * `amountMicro` USDC micro-units: the task and the amount; above {@link X402_DEFAULT_CLIENT_CAP_MICRO},
 * also what an agent on the default spend controls must change, since its client would otherwise
 * drop every requirement before signing (issue 42 item 7; docs/x402.md).
 */
export function paymentDescription(taskId: string, amountMicro: bigint): string {
  const base = `Payment of task ${taskId}: ${formatUsdc(amountMicro)} USDC`;
  if (amountMicro <= X402_DEFAULT_CLIENT_CAP_MICRO) return base;
  return (
    `${base}. This is more than the $1 a payment that x402 clients allow by default: list this asset in ` +
    `spendControls.allowedAssets with maxAmountPerPayment of at least "${amountMicro}" (micro-units; on ` +
    "defaults a client also refuses an asset it does not know, at any amount), or, for a USDC your client " +
    "knows, raise spendControls.maxAmountPerPayment (dollars)"
  );
}

/** What a task awaiting `amountMicro` asks for, in both versions. */
export interface TaskPaymentRequired {
  /** v2: the `PAYMENT-REQUIRED` header (base64 of this JSON) and MCP's `structuredContent`. */
  v2: PaymentRequired;
  /**
   * v1: the members of the 402 body (`x402Version: 1`, `accepts[]` with `maxAmountRequired`). v1's
   * `error` string is left out: it would collide with the envelope's `error` object, which carries
   * the reason as `error.invalid_reason`.
   */
  v1: { x402Version: 1; accepts: Record<string, unknown>[] };
}

/**
 * The x402 `PaymentRequired` of task `taskId` awaiting `amountMicro` USDC micro-units: one `exact`
 * requirement per configured network, layer 1 first; `error` (an x402 reason) when a payment was refused.
 */
export function taskPaymentRequired(
  taskId: string,
  amountMicro: bigint,
  error?: string,
  config: Config = getConfig(),
): TaskPaymentRequired {
  const url = x402Url(taskId, config);
  const description = paymentDescription(taskId, amountMicro);
  const accepts = networkConfigs(config).map((n) => requirementFor(n, amountMicro, config));
  return {
    v2: {
      x402Version: 2,
      ...(error ? { error } : {}),
      resource: { url, description, mimeType: "application/json" },
      accepts,
    },
    v1: {
      x402Version: 1,
      accepts: networkConfigs(config).map((n, i) => ({
        scheme: "exact",
        network: n.name,
        maxAmountRequired: accepts[i]!.amount,
        resource: url,
        description,
        mimeType: "application/json",
        outputSchema: {},
        payTo: accepts[i]!.payTo,
        maxTimeoutSeconds: accepts[i]!.maxTimeoutSeconds,
        asset: accepts[i]!.asset,
        extra: accepts[i]!.extra,
      })),
    },
  };
}

/** A refused payment: PAYMENT_REQUIRED with the x402 reason (the task may still be paid). */
export function refusedPayment(reason: string, message: string): DomainError {
  return new DomainError("PAYMENT_REQUIRED", message, {
    field: "payment",
    extra: { invalid_reason: reason },
  });
}

const HEX = /^0x[0-9a-fA-F]*$/;
const DECIMAL = /^[0-9]{1,78}$/;

/** The EIP-3009 authorization and signature of an `exact` EVM payload, checked for shape. */
function eip3009Of(payload: unknown): { authorization: Eip3009Authorization; signature: `0x${string}` } {
  const p = payload as { signature?: unknown; authorization?: Record<string, unknown> } | null;
  const a = p?.authorization;
  const ok =
    typeof p?.signature === "string" &&
    HEX.test(p.signature) &&
    a !== undefined &&
    typeof a === "object" &&
    ["from", "to"].every((k) => typeof a[k] === "string" && /^0x[0-9a-fA-F]{40}$/.test(a[k] as string)) &&
    ["value", "validAfter", "validBefore"].every(
      (k) => typeof a[k] === "string" && DECIMAL.test(a[k] as string),
    ) &&
    typeof a.nonce === "string" &&
    /^0x[0-9a-fA-F]{64}$/.test(a.nonce);
  if (!ok) {
    throw new DomainError(
      "INVALID_FORMAT",
      "The payment is not an x402 `exact` EVM payload: payload.signature (hex) and payload.authorization " +
        "{from, to, value, validAfter, validBefore, nonce} (EIP-3009) are required",
      { field: "payment", extra: { invalid_reason: X402_REASONS.invalidPayload } },
    );
  }
  return { authorization: a as unknown as Eip3009Authorization, signature: p!.signature as `0x${string}` };
}

/** The configured network a payload names: CAIP-2 `eip155:<id>` (v2, or v1) or our name (v1). */
function networkNamed(name: unknown, config: Config): NetworkConfig {
  const nets = networkConfigs(config);
  const net =
    typeof name === "string"
      ? nets.find((n) => n.name === name || caip2(n) === name.toLowerCase())
      : undefined;
  if (!net) {
    throw refusedPayment(
      X402_REASONS.unsupportedNetwork,
      `Network ${JSON.stringify(name)} is not accepted; accepted: ${nets.map((n) => `${caip2(n)} (${n.name})`).join(", ") || "none"}`,
    );
  }
  return net;
}

/**
 * Decodes a presented payment for a task awaiting `amountMicro`: `raw` is the JSON object (MCP)
 * or the base64 of it (HTTP headers), `version` the header it came in (v2 `PAYMENT-SIGNATURE`,
 * v1 `X-PAYMENT`; MCP: 2, or what `x402Version` says). A v1 payload is lifted to v2 with our
 * requirement for its network as `accepted`.
 * @throws DomainError INVALID_FORMAT (not an x402 `exact` EVM payload), PAYMENT_REQUIRED
 *   (`unsupported_network`, `unsupported_scheme`)
 */
export function decodePayment(
  raw: unknown,
  version: X402Version,
  amountMicro: bigint,
  config: Config = getConfig(),
): PresentedPayment {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(Buffer.from(raw.trim(), "base64").toString("utf8"));
    } catch {
      value = undefined;
    }
  }
  const obj = value as Record<string, unknown> | undefined;
  if (!obj || typeof obj !== "object" || (obj.x402Version !== 1 && obj.x402Version !== 2)) {
    throw new DomainError(
      "INVALID_FORMAT",
      `The ${version === 1 ? "X-PAYMENT" : "PAYMENT-SIGNATURE"} payment must be base64 JSON of an x402 payment payload with x402Version ${version}`,
      { field: "payment", extra: { invalid_reason: X402_REASONS.invalidPayload } },
    );
  }
  const v = obj.x402Version as X402Version;
  const accepted = (v === 2 ? obj.accepted : obj) as Record<string, unknown> | undefined;
  if (!accepted || typeof accepted !== "object") {
    throw new DomainError(
      "INVALID_FORMAT",
      "An x402 v2 payment payload names its requirement in `accepted`",
      {
        field: "payment",
        extra: { invalid_reason: X402_REASONS.invalidPayload },
      },
    );
  }
  const network = networkNamed(accepted.network, config);
  if (accepted.scheme !== "exact") {
    throw refusedPayment(X402_REASONS.unsupportedScheme, "Only the x402 `exact` scheme is accepted");
  }
  const { authorization, signature } = eip3009Of(obj.payload);
  const ours = requirementFor(network, amountMicro, config);
  const payload: PaymentPayload =
    v === 2
      ? (obj as unknown as PaymentPayload)
      : { x402Version: 2, accepted: ours, payload: obj.payload as Record<string, unknown> };
  return { version: v, network, payload, authorization, signature };
}

/** Seconds an authorization's `validBefore` may lie past now + `maxTimeoutSeconds` (clock skew). */
export const VALID_BEFORE_SLACK_SECONDS = 30;

/**
 * Checks what needs no chain: `to` is our wallet, `value` exactly the task's amount, now inside
 * (validAfter, validBefore) with 6 s to spare (as @x402/evm's verifier), and `validBefore` no later
 * than now + `maxTimeoutSeconds` + {@link VALID_BEFORE_SLACK_SECONDS}: the requirement asks for an
 * authorization that expires within `maxTimeoutSeconds` (x402 clients sign exactly that), and a
 * long-lived one (up to 2^256 − 1) could be kept and replayed later against another task of the
 * same amount.
 * @param maxTimeoutSeconds the requirement's `maxTimeoutSeconds` (X402_MAX_TIMEOUT_SECONDS)
 * @throws DomainError PAYMENT_REQUIRED with the x402 reason
 */
export function checkAuthorization(
  payment: PresentedPayment,
  amountMicro: bigint,
  now: Date,
  maxTimeoutSeconds: number,
): void {
  const a = payment.authorization;
  const seconds = BigInt(Math.floor(now.getTime() / 1000));
  if (a.to.toLowerCase() !== payment.network.wallet) {
    throw refusedPayment(
      X402_REASONS.recipientMismatch,
      `The authorization pays ${a.to}, not our wallet ${checksumAddress(payment.network.wallet)}`,
    );
  }
  if (BigInt(a.value) !== amountMicro) {
    throw refusedPayment(
      X402_REASONS.valueMismatch,
      `The authorization is for ${a.value} micro-USDC; this task needs exactly ${amountMicro}`,
    );
  }
  if (BigInt(a.validBefore) < seconds + 6n) {
    throw refusedPayment(X402_REASONS.validBefore, "The authorization has expired (validBefore is past)");
  }
  if (BigInt(a.validAfter) > seconds) {
    throw refusedPayment(X402_REASONS.validAfter, "The authorization is not valid yet (validAfter is ahead)");
  }
  const latest = seconds + BigInt(maxTimeoutSeconds + VALID_BEFORE_SLACK_SECONDS);
  if (BigInt(a.validBefore) > latest) {
    throw refusedPayment(
      X402_REASONS.validBefore,
      `The authorization is valid too long: validBefore must be at most now + maxTimeoutSeconds ` +
        `(${maxTimeoutSeconds} s) + ${VALID_BEFORE_SLACK_SECONDS} s, i.e. ${latest}`,
    );
  }
}
