/**
 * Budget pre-authorization (POST /api/billing `pre_authorize`; MCP `pre_authorize_cost`):
 * holds `max_cost_cad` of an active account's available balance for 5 minutes
 * (`valid_until`, spec "Limits"). The hold lowers `available_balance_cad` until it
 * expires or a task of the same key submitted while it was live is charged (the charge
 * consumes it). Denied (402 PAYMENT_REQUIRED, with reason, available balance and
 * suggestions) when the account is not active or the funds are short; a denial emits
 * `billing.payment_required`, a grant that lowers the spending level `billing.low_balance`.
 */
import { lockAccount } from "../accounts/store/find-account.js";
import { getDb, type Tx } from "../db/client.js";
import { type ClientAccount, preauthorizations } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import type { Caller } from "../keys/authenticate.js";
import { fromCents, toCents } from "../money.js";
import { accountBalance, type SpendingLevel, spendingLevel } from "./balance.js";
import { emitBillingEvent, emitLowBalanceIfWorse } from "./events.js";
import { resolveBillingAccount } from "./resolve-agent.js";

/** Validity of a pre-authorization, seconds (spec "Limits": 5 minutes). */
export const PREAUTHORIZATION_TTL_SECONDS = 300;

/** A granted pre-authorization. */
export interface PreauthorizationGranted {
  authorized: true;
  preauthorization_id: string;
  agent_id: string;
  max_cost_cad: number;
  available_balance_cad: number;
  spending_level: SpendingLevel;
  valid_until: string;
}

/**
 * Grants a hold of `maxCostCad` on the account `agentId` names, or throws 402.
 * @throws DomainError PAYMENT_REQUIRED (`authorized: false`, `reason`, `available_balance_cad`,
 *   `shortfall_cad`, `suggestions`), FORBIDDEN, NOT_FOUND, VALIDATION_ERROR (see resolveBillingAccount)
 */
export async function preAuthorize(
  caller: Caller,
  agentId: string,
  maxCostCad: number,
  now = new Date(),
): Promise<PreauthorizationGranted> {
  const found = await resolveBillingAccount(caller, agentId);
  const db = await getDb();
  const outcome = await db.transaction(async (tx) => {
    const account = await lockAccount(tx, found.id);
    const { available_balance_cad } = await accountBalance(account.id, tx, now);
    const hold: HoldRequest = {
      tx,
      caller,
      account,
      agentId,
      maxCostCad,
      availableCad: available_balance_cad,
      now,
    };
    const shortCents = toCents(maxCostCad) - toCents(available_balance_cad);
    if (account.status !== "active" || shortCents > 0)
      return { denial: await recordDenial(hold, shortCents) };
    return { granted: await grantHold(hold) };
  });
  if ("denial" in outcome && outcome.denial) throw denialError(outcome.denial, maxCostCad);
  return outcome.granted!;
}

/** One pre-authorization being decided: the locked account and its available balance (CAD) before it. */
interface HoldRequest {
  tx: Tx;
  caller: Caller;
  account: ClientAccount;
  agentId: string;
  maxCostCad: number;
  availableCad: number;
  now: Date;
}

/** The body of a denial (the 402's `extra`). */
type Denial = Awaited<ReturnType<typeof recordDenial>>;

/**
 * Builds the denial of `hold` (account not active, or `shortCents` missing) and emits
 * `billing.payment_required` in the same transaction.
 */
async function recordDenial(hold: HoldRequest, shortCents: number) {
  const { tx, caller, account, agentId, maxCostCad, availableCad, now } = hold;
  const levelBefore = spendingLevel(account.status, availableCad);
  const reason =
    account.status === "pending_deposit"
      ? "account_pending_deposit"
      : account.status === "suspended"
        ? "account_suspended"
        : "insufficient_funds";
  const denial = {
    authorized: false as const,
    reason,
    agent_id: agentId,
    max_cost_cad: maxCostCad,
    available_balance_cad: availableCad,
    shortfall_cad: fromCents(Math.max(shortCents, 0)),
    spending_level: levelBefore,
    suggestions: suggestionsFor(reason),
  };
  await emitBillingEvent(
    tx,
    "billing.payment_required",
    { accountId: account.id, apiKeyId: caller.keyId },
    {
      agent_id: account.email,
      reason,
      required_cad: maxCostCad,
      available_balance_cad: availableCad,
      spending_level: levelBefore,
    },
    now,
  );
  return denial;
}

/**
 * Inserts the hold of `hold` (valid PREAUTHORIZATION_TTL_SECONDS) and emits `billing.low_balance`
 * when it lowers the spending level.
 */
async function grantHold(hold: HoldRequest): Promise<PreauthorizationGranted> {
  const { tx, caller, account, agentId, maxCostCad, availableCad, now } = hold;
  const validUntil = new Date(now.getTime() + PREAUTHORIZATION_TTL_SECONDS * 1000);
  const id = prefixedId("pa");
  await tx.insert(preauthorizations).values({
    id,
    accountId: account.id,
    agentId,
    apiKeyId: caller.keyId,
    amountCad: maxCostCad,
    validUntil,
    createdAt: now,
  });
  const after = await emitLowBalanceIfWorse(
    tx,
    account,
    caller.keyId,
    availableCad,
    maxCostCad,
    { reason: "pre_authorization", preauthorization_id: id },
    now,
  );
  return {
    authorized: true,
    preauthorization_id: id,
    agent_id: agentId,
    max_cost_cad: maxCostCad,
    available_balance_cad: after.availableCad,
    spending_level: after.level,
    valid_until: validUntil.toISOString(),
  };
}

/** The 402 PAYMENT_REQUIRED of `denial`, with a message naming its reason. */
function denialError(denial: Denial, maxCostCad: number): DomainError {
  const why =
    denial.reason === "insufficient_funds"
      ? `Insufficient funds: ${denial.available_balance_cad.toFixed(2)} CAD available, ${maxCostCad.toFixed(2)} CAD requested`
      : denial.reason === "account_pending_deposit"
        ? "The account awaits its first deposit"
        : "The account is suspended";
  return new DomainError("PAYMENT_REQUIRED", why, { extra: denial });
}

function suggestionsFor(reason: string): string[] {
  switch (reason) {
    case "account_pending_deposit":
      return [
        "Arrange a deposit with the operator; the account becomes active once it is recorded",
        "Meanwhile, submit tasks without an account and pay each in USDC",
      ];
    case "account_suspended":
      return ["Contact the operator about the suspension", "Pay tasks in USDC meanwhile"];
    default:
      return [
        "Lower max_cost_cad to the available balance",
        "Ask the operator for a deposit to top up the account",
        "Pay the task in USDC instead (payment instructions follow approval)",
      ];
  }
}
