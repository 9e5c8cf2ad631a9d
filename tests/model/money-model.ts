/**
 * The model of the money for the model-based test (issue 42 item 3; docs/payments.md "The model
 * test of the money"): a simple model of accounts and tasks, fast-check commands that each call a
 * real handler (api/… through tests/helpers, the cron function, the payment recorders), and the
 * invariants checked against the database and the API after every command.
 *
 * Model, all amounts in integer CAD cents:
 * - per account: its balance (deposits + adjustments − charges + credits);
 * - per task: status, price, what was paid and how, what was granted back by every path
 *   (cancellation, dispute resolutions, SLA credit), what is owed and not settled, what was
 *   settled, the settlements made, its disputes, whether an SLA credit was given.
 *
 * One database serves every run of a file: each run opens its own accounts and keys, so a run's
 * model covers its own rows, and the global checks (each balance = its ledger) cover them all.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import fc from "fast-check";
import { expect } from "vitest";
import { POST as privacyAdminPost } from "../../api/privacy-admin.js";
import { accountBalance } from "../../lib/billing/balance.js";
import { getConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import {
  apiKeys,
  auditLog,
  clientAccounts,
  emails,
  invoices,
  ledgerEntries,
  slaCredits,
  taskDisputes,
  taskRefunds,
  tasks,
  x402Settlements,
} from "../../lib/db/schema/index.js";
import { prefixedId } from "../../lib/ids.js";
import { slaCredits as slaCreditsJob } from "../../lib/jobs/sla-credits.js";
import { createApiKey } from "../../lib/keys/create-api-key.js";
import { fromCents, toCents } from "../../lib/money.js";
import type { NetworkConfig } from "../../lib/payments/networks.js";
import { recordSettled } from "../../lib/payments/x402/settlements.js";
import { recordPayments } from "../../lib/tasks/state/record-payment.js";
import { totalWithTaxes } from "../../lib/taxes.js";
import { accountAdmin, billing, openAccount } from "../accounts/helpers.js";
import { openDispute, resolve } from "../disputes/helpers.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import { expectLedgerConsistent } from "../helpers/ledger.js";
import { call } from "../helpers/request.js";
import {
  cancelTask,
  completeTask,
  pngProof,
  recordPayment,
  reviewTask,
  settleRefund,
  submitTask,
  validTask,
} from "../helpers/tasks.js";
import { verifyAddresses } from "../helpers/verified.js";

const SCOPES = ["audit_only", "task_create", "task_cancel", "billing_read"] as const;
const HOUR = 3600_000;

/** A prepaid account of the model. */
export interface ModelAccount {
  email: string;
  key: string;
  accountId: string;
  /** CAD cents. */
  balance: number;
  /** Active once a deposit was taken (an account opens `pending_deposit`; adjustments leave it so). */
  active: boolean;
  erased: boolean;
}

/** How a task was paid. */
export type PaidBy = "account" | "usdc" | "x402" | "manual";

/** A task of the model; amounts in CAD cents. */
export interface ModelTask {
  id: string;
  /** Index in `accounts`, or -1 for the key without an account (pays USDC, x402 or out of band). */
  owner: number;
  status:
    | "received"
    | "accepted_pending_payment"
    | "counter_offered"
    | "paid"
    | "dispatched"
    | "completed"
    | "failed"
    | "cancelled";
  price: number;
  paidBy: PaidBy | null;
  paid: number;
  /** Granted back by every path (credits to the account, refunds owed with an amount). */
  granted: number;
  /** Owed refunds not yet settled, with an amount. */
  owed: number;
  /** An owed refund is pending (with an amount or not: a cancellation after dispatch). */
  pending: boolean;
  /** Settled refunds (`refunded`), and how many settlements (refunded or denied). */
  settled: number;
  settlements: number;
  /** The last settlement's request (body and Idempotency-Key), for a retry. */
  lastSettle: { body: Record<string, unknown>; key: string; answer: unknown } | null;
  /** The open dispute's id; whether an earlier one was resolved otherwise than `redo`. */
  openDispute: string | null;
  finalDispute: boolean;
  disputes: number;
  slaCredited: boolean;
}

/** The model of one run. */
export interface Model {
  accounts: ModelAccount[];
  tasks: ModelTask[];
  /** Idempotency keys and transaction hashes made unique per run. */
  serial: number;
  run: string;
}

/** What the commands drive: the admin key and the key without an account. */
export interface Real {
  admin: string;
  usdcKey: string;
  /** Every answer's status (the no-5xx invariant). */
  statuses: number[];
}

/** The left to grant of `t` (cents): paid − granted, never below 0. */
export const leftOf = (t: ModelTask) => Math.max(0, t.paid - t.granted);

/** Records an answer's status and fails on any 5xx. */
function answered<B>(real: Real, what: string, r: { res: Response; body: B }) {
  real.statuses.push(r.res.status);
  if (r.res.status >= 500) {
    throw new Error(`${what}: ${r.res.status} ${JSON.stringify(r.body)}`);
  }
  return r;
}

/** Asserts `r` has `status` (else throws naming the command and the body). */
function expectStatus(what: string, r: { res: Response; body: any }, ...status: number[]) {
  if (!status.includes(r.res.status)) {
    throw new Error(
      `${what}: expected ${status.join(" or ")}, got ${r.res.status} ${JSON.stringify(r.body)}`,
    );
  }
}

const txHash = (model: Model, tag: string) => {
  const hex = Buffer.from(`${model.run}-${tag}-${++model.serial}`)
    .toString("hex")
    .padEnd(64, "0");
  return `0x${hex.slice(0, 64)}`;
};

/** The paid cents of a payment of `price` (cents) by `how`: a receipt's total with taxes, else the price. */
function paidCents(price: number, how: PaidBy): number {
  if (how === "account" || how === "manual") return price;
  return toCents(totalWithTaxes(fromCents(price), getConfig().TAX_REGISTERED, new Date()));
}

/** The task `cmd` acts on: its `target` (inside a compound command), else the `pick`-th (modulo) task matching `where`. */
function pickTask(
  model: Model,
  cmd: { pick: number; target?: string | null },
  where: (t: ModelTask) => boolean,
): ModelTask | undefined {
  if (cmd.target) return model.tasks.find((t) => t.id === cmd.target && where(t));
  const list = model.tasks.filter(where);
  return list.length ? list[cmd.pick % list.length] : undefined;
}

const hasTask = (where: (t: ModelTask) => boolean) => (m: Readonly<Model>) => m.tasks.some(where);
const awaitingPayment = (t: ModelTask) =>
  t.status === "accepted_pending_payment" || t.status === "counter_offered";
const ownerKey = (model: Model, real: Real, t: ModelTask) =>
  t.owner < 0 ? real.usdcKey : model.accounts[t.owner]!.key;
/** A task with an open dispute (what {@link Resolve} acts on). */
const disputed = (t: ModelTask) => t.openDispute !== null;
/** A finished task without its SLA credit (what {@link SlaCredit} acts on). */
const creditable = (t: ModelTask) => (t.status === "completed" || t.status === "failed") && !t.slaCredited;
const ownerActive = (m: Readonly<Model>, t: ModelTask) => t.owner < 0 || !m.accounts[t.owner]!.erased;

type Cmd = fc.AsyncCommand<Model, Real, false>;

/** Base of the commands: `toString` is what the shrunk sequence prints. */
abstract class Base implements Cmd {
  /** The task to act on, set by a compound command ({@link CompletedTask}). */
  target: string | null = null;
  abstract check(m: Readonly<Model>): boolean;
  /** Calls the real handler and updates the model from what it must answer. */
  abstract act(m: Model, r: Real): Promise<void>;
  abstract toString(): string;
  /** The command, then every invariant ({@link checkInvariants}). */
  async run(m: Model, r: Real): Promise<void> {
    await this.act(m, r);
    await checkInvariants(m, r);
  }
}

class Deposit extends Base {
  constructor(
    readonly account: number,
    readonly cents: number,
  ) {
    super();
  }
  check = (m: Readonly<Model>) => !m.accounts[this.account]!.erased;
  async act(m: Model, r: Real) {
    const a = m.accounts[this.account]!;
    const res = answered(
      r,
      "deposit",
      await accountAdmin(r.admin, { action: "deposit", email: a.email, amount_cad: fromCents(this.cents) }),
    );
    expectStatus("deposit", res, 200);
    a.balance += this.cents;
    a.active = true;
  }
  toString = () => `deposit(account ${this.account}, ${fromCents(this.cents)})`;
}

class Adjustment extends Base {
  constructor(
    readonly account: number,
    readonly cents: number,
  ) {
    super();
  }
  check = (m: Readonly<Model>) => !m.accounts[this.account]!.erased;
  async act(m: Model, r: Real) {
    const a = m.accounts[this.account]!;
    const res = answered(
      r,
      "adjustment",
      await accountAdmin(r.admin, {
        action: "adjust",
        email: a.email,
        amount_cad: fromCents(this.cents),
        description: "Model test adjustment",
      }),
    );
    if (a.balance + this.cents < 0) {
      expectStatus("adjustment below zero", res, 422);
      return;
    }
    expectStatus("adjustment", res, 200);
    a.balance += this.cents;
  }
  toString = () => `adjustment(account ${this.account}, ${fromCents(this.cents)})`;
}

class Submit extends Base {
  constructor(readonly owner: number) {
    super();
  }
  check = (m: Readonly<Model>) => this.owner < 0 || !m.accounts[this.owner]!.erased;
  async act(m: Model, r: Real) {
    const key = this.owner < 0 ? r.usdcKey : m.accounts[this.owner]!.key;
    const res = answered(r, "submit", await submitTask(validTask, keyHeaders(key)));
    expectStatus("submit", res, 201);
    m.tasks.push({
      id: res.body.task_id,
      owner: this.owner,
      status: "received",
      price: 0,
      paidBy: null,
      paid: 0,
      granted: 0,
      owed: 0,
      pending: false,
      settled: 0,
      settlements: 0,
      lastSettle: null,
      openDispute: null,
      finalDispute: false,
      disputes: 0,
      slaCredited: false,
    });
  }
  toString = () => `submit(owner ${this.owner < 0 ? "usdc key" : `account ${this.owner}`})`;
}

/** Approve at a price: charged at once when the owner's account holds it (the prepaid charge). */
class Approve extends Base {
  constructor(
    readonly pick: number,
    readonly cents: number,
  ) {
    super();
  }
  check = hasTask((t) => t.status === "received");
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, (x) => x.status === "received")!;
    const res = answered(
      r,
      "approve",
      await reviewTask(r.admin, { task_id: t.id, action: "approve", price_cad: fromCents(this.cents) }),
    );
    expectStatus("approve", res, 200);
    t.price = this.cents;
    const account = t.owner >= 0 ? m.accounts[t.owner]! : undefined;
    const charged = account?.active === true && !account.erased && account.balance >= this.cents;
    if (account?.erased) {
      // An erased account may or may not take charges: the model follows the answer.
      if (res.body.status === "paid") this.charge(t, account);
      else t.status = "accepted_pending_payment";
      return;
    }
    expect(res.body.status, `approve ${t.id}`).toBe(charged ? "paid" : "accepted_pending_payment");
    if (charged) this.charge(t, account!);
    else t.status = "accepted_pending_payment";
  }
  private charge(t: ModelTask, a: ModelAccount) {
    t.status = "paid";
    t.paidBy = "account";
    t.paid = t.price;
    a.balance -= t.price;
  }
  toString = () => `approve(task #${this.pick}, ${fromCents(this.cents)})`;
}

class CounterOffer extends Base {
  constructor(
    readonly pick: number,
    readonly cents: number,
  ) {
    super();
  }
  check = hasTask((t) => t.status === "received");
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, (x) => x.status === "received")!;
    const res = answered(
      r,
      "counter-offer",
      await reviewTask(r.admin, {
        task_id: t.id,
        action: "counter_offer",
        counter_offer_amount: fromCents(this.cents),
        reason: "Model test counter-offer",
      }),
    );
    expectStatus("counter-offer", res, 200);
    expect(res.body.status).toBe("counter_offered");
    t.status = "counter_offered";
    t.price = this.cents;
  }
  toString = () => `counterOffer(task #${this.pick}, ${fromCents(this.cents)})`;
}

/** A payment of a task awaiting one: USDC (the checker's recorder), x402 (its settlement recorder) or out of band. */
class Pay extends Base {
  constructor(
    readonly pick: number,
    readonly how: "usdc" | "x402" | "manual",
  ) {
    super();
  }
  check = hasTask(awaitingPayment);
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, awaitingPayment)!;
    if (this.how === "manual") {
      const res = answered(
        r,
        "manual payment",
        await recordPayment(r.admin, { task_id: t.id, note: "Interac" }),
      );
      expectStatus("manual payment", res, 200);
      expect(res.body.status).toBe("paid");
    } else if (this.how === "usdc") {
      // The USDC matcher's recorder (lib/jobs/check-payments.ts hands it to the scan).
      const out = await recordPayments([
        { taskId: t.id, payment: { method: "usdc", network: "base", txHash: txHash(m, "usdc") } },
      ]);
      expect(out.refused, `usdc payment of ${t.id}`).toHaveLength(0);
    } else {
      await payX402(m, t.id);
    }
    t.status = "paid";
    t.paidBy = this.how;
    t.paid = paidCents(t.price, this.how);
  }
  toString = () => `pay(task #${this.pick}, ${this.how})`;
}

/** The configured network x402 records a mined transfer on (no chain is asked here). */
const X402_NET: NetworkConfig = {
  name: "base",
  layer: 2,
  rpcUrl: "http://127.0.0.1:9",
  chainId: 8453,
  usdcContract: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
  wallet: "0x5e1f000000000000000000000000000000c0ffee",
  confirmation: { tag: "latest" },
};

/**
 * x402: the settlement row claimed and broadcast, then the mined transfer recorded as x402 does
 * once the chain has it (lib/payments/x402/settlements.ts `recordSettled`): the task paid, the
 * receipt, the matched transfer.
 */
async function payX402(m: Model, taskId: string) {
  const db = await getDb();
  const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
  const hash = txHash(m, "x402") as `0x${string}`;
  const [row] = await db
    .insert(x402Settlements)
    .values({
      id: prefixedId("x4s"),
      taskId,
      network: X402_NET.name,
      chainId: X402_NET.chainId,
      x402Version: 2,
      payer: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
      nonce: txHash(m, "nonce"),
      amountMicro: task!.paymentUsdcMicro!,
      signature: `0x${"11".repeat(65)}`,
      status: "broadcast",
      txHash: hash,
    })
    .returning();
  await recordSettled(row!, X402_NET, {
    txHash: hash,
    logIndex: 0,
    blockNumber: 1n,
    blockHash: `0x${"22".repeat(32)}`,
    blockTime: new Date(),
  });
}

class CancelBeforePayment extends Base {
  constructor(readonly pick: number) {
    super();
  }
  private where = (m: Readonly<Model>) => (t: ModelTask) =>
    (t.status === "received" || awaitingPayment(t)) && ownerActive(m, t);
  check = (m: Readonly<Model>) => m.tasks.some(this.where(m));
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, this.where(m))!;
    const res = answered(r, "cancel", await cancelTask(t.id, keyHeaders(ownerKey(m, r, t))));
    expectStatus("cancel before payment", res, 200);
    expect(res.body.status).toBe("cancelled");
    t.status = "cancelled";
  }
  toString = () => `cancelBeforePayment(task #${this.pick})`;
}

/** Cancel a paid (or dispatched) task: prepaid before dispatch → credited; else a refund owed. */
class CancelAfterPayment extends Base {
  constructor(readonly pick: number) {
    super();
  }
  private where = (m: Readonly<Model>) => (t: ModelTask) =>
    (t.status === "paid" || t.status === "dispatched") && ownerActive(m, t);
  check = (m: Readonly<Model>) => m.tasks.some(this.where(m));
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, this.where(m))!;
    const dispatched = t.status === "dispatched";
    const res = answered(r, "cancel", await cancelTask(t.id, keyHeaders(ownerKey(m, r, t))));
    expectStatus("cancel after payment", res, 200);
    t.status = "cancelled";
    const left = leftOf(t);
    if (t.paidBy === "account" && !dispatched) {
      t.granted += left;
      m.accounts[t.owner]!.balance += left;
    } else if (dispatched) {
      t.pending = true; // the operator fixes the amount at settlement
    } else {
      t.granted += left;
      t.owed += left;
      t.pending = true;
    }
  }
  toString = () => `cancelAfterPayment(task #${this.pick})`;
}

class Dispatch extends Base {
  constructor(readonly pick: number) {
    super();
  }
  check = hasTask((t) => t.status === "paid");
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, (x) => x.status === "paid")!;
    const res = answered(r, "dispatch", await completeTask(r.admin, { task_id: t.id, action: "dispatch" }));
    expectStatus("dispatch", res, 200);
    t.status = "dispatched";
  }
  toString = () => `dispatch(task #${this.pick})`;
}

class Finish extends Base {
  constructor(
    readonly pick: number,
    readonly outcome: "complete" | "fail",
  ) {
    super();
  }
  check = hasTask((t) => t.status === "dispatched");
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, (x) => x.status === "dispatched")!;
    const body =
      this.outcome === "complete"
        ? {
            task_id: t.id,
            action: "complete",
            proof_files: [pngProof()],
            // The admin key completes without a field check-in: a service that requires a visit
            // asks why (flagged NO_SITE_VISIT; docs/decisions.md 45).
            no_visit_reason: "Model: completed without a site visit",
          }
        : { task_id: t.id, action: "fail", reason: "Closed for renovation" };
    const res = answered(r, this.outcome, await completeTask(r.admin, body));
    expectStatus(this.outcome, res, 200);
    t.status = this.outcome === "complete" ? "completed" : "failed";
    expect(res.body.status).toBe(t.status);
  }
  toString = () => `${this.outcome}(task #${this.pick})`;
}

/**
 * The owner disputes a completed task. Once per task, again only after a `redo`
 * (docs/decisions.md 37): a task whose dispute was resolved otherwise is refused 409.
 */
class Dispute extends Base {
  constructor(readonly pick: number) {
    super();
  }
  private where = (m: Readonly<Model>) => (t: ModelTask) =>
    t.status === "completed" && t.openDispute === null && ownerActive(m, t);
  check = (m: Readonly<Model>) => m.tasks.some(this.where(m));
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, this.where(m))!;
    const res = answered(
      r,
      "dispute",
      await openDispute(
        { task_id: t.id, reason: "incomplete", details: "Only part of it was done." },
        keyHeaders(ownerKey(m, r, t)),
      ),
    );
    if (t.finalDispute && res.res.status === 409) return;
    expectStatus("dispute", res, 201);
    t.openDispute = res.body.dispute.dispute_id;
    t.disputes++;
  }
  toString = () => `dispute(task #${this.pick})`;
}

/**
 * A dispute row written directly, open, on a task whose earlier dispute was resolved: as a
 * dispute opened before decision 37 could be (the cap must hold whatever the rows say).
 */
class EarlierRuleDispute extends Base {
  constructor(readonly pick: number) {
    super();
  }
  private where = (t: ModelTask) => t.status === "completed" && t.openDispute === null && t.finalDispute;
  check = hasTask(this.where);
  async act(m: Model) {
    const t = pickTask(m, this, this.where)!;
    const id = prefixedId("dsp");
    await (await getDb())
      .insert(taskDisputes)
      .values({ id, taskId: t.id, reason: "incomplete", details: "Still not done." });
    t.openDispute = id;
    t.disputes++;
  }
  toString = () => `earlierRuleDispute(task #${this.pick})`;
}

/** Staff resolve the open dispute: redo, reject, partial_refund (amount) or full_refund. */
class Resolve extends Base {
  constructor(
    readonly pick: number,
    readonly resolution: "redo" | "reject" | "partial_refund" | "full_refund",
    readonly cents: number,
  ) {
    super();
  }
  check = hasTask((t) => t.openDispute !== null);
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, (x) => x.openDispute !== null)!;
    const body: Record<string, unknown> = { dispute_id: t.openDispute, resolution: this.resolution };
    if (this.resolution === "partial_refund") body.amount_cad = fromCents(this.cents);
    if (this.resolution === "reject") body.reason = "The proof shows the work done.";
    const res = answered(r, "resolve", await resolve(r.admin, body));
    const left = leftOf(t);
    if (this.resolution === "partial_refund" || this.resolution === "full_refund") {
      const amount = this.resolution === "full_refund" ? left : this.cents;
      if (left === 0 || amount > left) {
        // More than what is left, counting every refund given or owed: 422 naming what is left.
        expectStatus(`${this.resolution} of ${fromCents(amount)} with ${fromCents(left)} left`, res, 422);
        expect(res.body.error.max_amount_cad, "max_amount_cad").toBe(fromCents(left));
        return;
      }
      expectStatus(this.resolution, res, 200);
      expect(res.body.refund_amount_cad, `${this.resolution} granted (left ${fromCents(left)})`).toBe(
        fromCents(amount),
      );
      t.granted += amount;
      if (t.paidBy === "account") m.accounts[t.owner]!.balance += amount;
      else {
        t.owed += amount;
        t.pending = true;
      }
    } else {
      expectStatus(this.resolution, res, 200);
    }
    t.openDispute = null;
    if (this.resolution !== "redo") t.finalDispute = true;
  }
  toString = () =>
    `resolve(task #${this.pick}, ${this.resolution}${this.resolution === "partial_refund" ? ` ${fromCents(this.cents)}` : ""})`;
}

/**
 * Finance settles the pending refund (POST /api/task-refund): refunded (the amount owed, or a
 * given amount) or denied; `retry` sends the same request again with its Idempotency-Key.
 */
class Settle extends Base {
  constructor(
    readonly pick: number,
    readonly outcome: "refunded" | "denied",
    readonly cents: number | null,
  ) {
    super();
  }
  check = hasTask((t) => t.pending || t.paid > 0);
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, (x) => x.pending || x.paid > 0)!;
    const key = `model-${m.run}-${++m.serial}`;
    const body: Record<string, unknown> = { task_id: t.id, outcome: this.outcome };
    if (this.outcome === "denied") body.note = "Outside the cancellation policy.";
    if (this.outcome === "refunded" && this.cents !== null) body.amount_cad = fromCents(this.cents);
    if (this.outcome === "refunded" && t.paidBy !== "account") body.tx_hash = txHash(m, "refund");
    const res = answered(r, "settle", await settleRefund(r.admin, body, { "idempotency-key": key }));
    if (!t.pending) {
      expectStatus("settle without a pending refund", res, 409);
      return;
    }
    // What may go back: what was paid less what was already given back (settled or credited).
    const given = t.granted - t.owed;
    const settleable = Math.max(0, t.paid - given);
    const amount = this.cents ?? (t.owed > 0 ? t.owed : settleable);
    if (this.outcome === "refunded" && amount > settleable) {
      expectStatus(`settle ${fromCents(amount)} (settleable ${fromCents(settleable)})`, res, 422);
      expect(res.body.error.max_amount_cad).toBe(fromCents(settleable));
      return;
    }
    if (this.outcome === "refunded" && t.paidBy === "account" && amount === 0) {
      expectStatus("settle nothing to the account", res, 422);
      return;
    }
    expectStatus(`settlement #${t.settlements + 1} of ${t.id}`, res, 200);
    t.settlements++;
    t.pending = false;
    // The settlement closes every owed refund; what it gave replaces what was owed.
    t.granted -= t.owed;
    t.owed = 0;
    if (this.outcome === "refunded") {
      t.granted += amount;
      t.settled += amount;
      if (t.paidBy === "account") m.accounts[t.owner]!.balance += amount;
    }
    t.lastSettle = { body, key, answer: res.body };
  }
  toString = () =>
    `settle(task #${this.pick}, ${this.outcome}${this.cents === null ? "" : ` ${fromCents(this.cents)}`})`;
}

/** The last settlement sent again with its Idempotency-Key: the same answer, nothing recorded twice. */
class RetrySettle extends Base {
  constructor(readonly pick: number) {
    super();
  }
  check = hasTask((t) => t.lastSettle !== null);
  async act(m: Model, r: Real) {
    const t = pickTask(m, this, (x) => x.lastSettle !== null)!;
    const last = t.lastSettle!;
    const res = answered(
      r,
      "settle retry",
      await settleRefund(r.admin, last.body, { "idempotency-key": last.key }),
    );
    expectStatus("settle retry", res, 200);
    expect(res.body, "a retried settlement answers as the first").toEqual(last.answer);
  }
  toString = () => `retrySettle(task #${this.pick})`;
}

/**
 * The SLA credit job (the cron function) after task `pick` finished `hours` past its execution
 * deadline (the deadline is moved back: the clock cannot be).
 */
class SlaCredit extends Base {
  constructor(
    readonly pick: number,
    readonly hours: number,
  ) {
    super();
  }
  private where = creditable;
  check = hasTask(this.where);
  async act(m: Model) {
    const t = pickTask(m, this, this.where)!;
    const db = await getDb();
    const [row] = await db.select().from(tasks).where(eq(tasks.id, t.id));
    const failed = await db.execute(
      sql`select max(created_at) as at from task_events where task_id = ${t.id} and type = 'task.failed'`,
    );
    const failedAt = (Array.isArray(failed) ? failed : (failed as { rows: unknown[] }).rows)[0] as
      | { at: string | Date | null }
      | undefined;
    const finished = row!.completedAt ?? new Date(failedAt!.at!);
    await db
      .update(tasks)
      .set({ executionDeadline: new Date(finished.getTime() - this.hours * HOUR) })
      .where(eq(tasks.id, t.id));
    const job = await slaCreditsJob(new Date(finished.getTime() + HOUR));
    expect(job.ok, `SLA credit job: ${JSON.stringify(job)}`).toBe(true);
    const config = getConfig();
    const days = Math.floor(this.hours / 24);
    const percent = Math.min(days * config.SLA_CREDIT_PERCENT, config.SLA_CREDIT_CAP_PERCENT);
    const due = Math.min(Math.round((t.paid * percent) / 100), leftOf(t));
    const [credit] = await db.select().from(slaCredits).where(eq(slaCredits.taskId, t.id));
    if (days < 1 || due <= 0 || t.price === 0) {
      expect(credit, `no SLA credit for ${t.id}`).toBeUndefined();
      return;
    }
    expect(credit, `SLA credit of ${t.id}`).toBeDefined();
    expect(toCents(credit!.amountCad)).toBe(due);
    t.slaCredited = true;
    t.granted += due;
    if (t.paidBy === "account") m.accounts[t.owner]!.balance += due;
    else {
      t.owed += due;
      t.pending = true;
    }
  }
  toString = () => `slaCredit(task #${this.pick}, ${this.hours} h late)`;
}

/** Law 25: the operator processes the erasure of a requester's account now (POST /api/privacy-admin). */
class Erase extends Base {
  constructor(readonly account: number) {
    super();
  }
  check = (m: Readonly<Model>) => !m.accounts[this.account]!.erased;
  async act(m: Model, r: Real) {
    const a = m.accounts[this.account]!;
    const res = answered(
      r,
      "erasure",
      await call(privacyAdminPost, "/api/privacy-admin", {
        method: "POST",
        headers: { "x-api-key": r.admin },
        json: { action: "process_erasure", account_id: a.accountId, reason: "Requester asked (model test)" },
      }),
    );
    expectStatus("erasure", res, 200);
    a.erased = true;
  }
  toString = () => `erase(account ${this.account})`;
}

/**
 * A compound command that reaches the recourse paths in one step: submit, approve at a price (the
 * prepaid charge when the account holds it), pay by `how` otherwise, dispatch, complete. Each step
 * is the primitive command's, on the new task.
 */
class CompletedTask extends Base {
  constructor(
    readonly owner: number,
    readonly cents: number,
    readonly how: "usdc" | "x402" | "manual",
  ) {
    super();
  }
  check = (m: Readonly<Model>) => this.owner < 0 || !m.accounts[this.owner]!.erased;
  async act(m: Model, r: Real) {
    await new Submit(this.owner).act(m, r);
    const id = m.tasks.at(-1)!.id;
    const on = <C extends Base>(cmd: C) => Object.assign(cmd, { target: id });
    await on(new Approve(0, this.cents)).act(m, r);
    if (m.tasks.at(-1)!.status !== "paid") await on(new Pay(0, this.how)).act(m, r);
    await on(new Dispatch(0)).act(m, r);
    await on(new Finish(0, "complete")).act(m, r);
  }
  toString = () =>
    `completedTask(owner ${this.owner < 0 ? "usdc key" : `account ${this.owner}`}, ${fromCents(this.cents)}, ${this.how})`;
}

/**
 * A compound command of the recourse subset: a resolution or the SLA credit job, then finance
 * settling at once (outcome `refunded` with the owed amount, or `denied`): the order in which a
 * task collects several settlements.
 */
class GrantThenSettle extends Base {
  constructor(
    readonly grant: Resolve | SlaCredit,
    readonly outcome: "refunded" | "denied",
  ) {
    super();
  }
  check = (m: Readonly<Model>) => this.grant.check(m);
  async act(m: Model, r: Real) {
    const t = pickTask(m, this.grant, this.grant instanceof Resolve ? disputed : creditable)!;
    await this.grant.act(m, r);
    if (t.pending) await Object.assign(new Settle(0, this.outcome, null), { target: t.id }).act(m, r);
  }
  toString = () => `${this.grant.toString()}+settle(${this.outcome})`;
}

/** Amounts in cents: 0.01 to 600.00 CAD, with the odd cents that rounding loves. */
const cents = fc.oneof(fc.integer({ min: 1, max: 60_000 }), fc.constantFrom(37_967, 10_000, 5_000, 1));
const pick = fc.nat({ max: 50 });

/** Every command, as fast-check arbitraries; a command listed `weight` times is drawn that much more often. */
export function commandArbitraries(accounts: number): fc.Arbitrary<Cmd>[] {
  const account = fc.nat({ max: accounts - 1 });
  const owner = fc.integer({ min: -1, max: accounts - 1 });
  const how = fc.constantFrom("usdc", "x402", "manual") as fc.Arbitrary<"usdc" | "x402" | "manual">;
  const resolution = fc.constantFrom(
    "redo",
    "reject",
    "partial_refund",
    "full_refund",
    "partial_refund",
  ) as fc.Arbitrary<"redo" | "reject" | "partial_refund" | "full_refund">;
  const outcome = fc.constantFrom("refunded", "refunded", "denied") as fc.Arbitrary<"refunded" | "denied">;
  const weighted: [number, fc.Arbitrary<Cmd>][] = [
    [2, fc.tuple(account, cents).map(([a, c]) => new Deposit(a, c))],
    [
      1,
      fc
        .tuple(
          account,
          fc.integer({ min: -30_000, max: 30_000 }).filter((c) => c !== 0),
        )
        .map(([a, c]) => new Adjustment(a, c)),
    ],
    [2, owner.map((o) => new Submit(o))],
    [2, fc.tuple(pick, cents).map(([p, c]) => new Approve(p, c))],
    [1, fc.tuple(pick, cents).map(([p, c]) => new CounterOffer(p, c))],
    [2, fc.tuple(pick, how).map(([p, h]) => new Pay(p, h))],
    [1, pick.map((p) => new CancelBeforePayment(p))],
    [1, pick.map((p) => new CancelAfterPayment(p))],
    [2, pick.map((p) => new Dispatch(p))],
    [2, pick.map((p) => new Finish(p, "complete"))],
    [1, pick.map((p) => new Finish(p, "fail"))],
    [3, fc.tuple(owner, cents, how).map(([o, c, h]) => new CompletedTask(o, c, h))],
    [4, pick.map((p) => new Dispute(p))],
    [2, pick.map((p) => new EarlierRuleDispute(p))],
    [5, fc.tuple(pick, resolution, cents).map(([p, res, c]) => new Resolve(p, res, c))],
    [
      4,
      fc
        .tuple(pick, outcome, fc.option(cents, { freq: 3 }))
        .map(([p, o, c]) => new Settle(p, o, o === "denied" ? null : c)),
    ],
    [1, pick.map((p) => new RetrySettle(p))],
    [2, fc.tuple(pick, fc.integer({ min: 1, max: 200 })).map(([p, h]) => new SlaCredit(p, h))],
    [1, account.map((a) => new Erase(a))],
  ];
  return weighted.flatMap(([weight, arb]) => Array.from({ length: weight }, () => arb));
}

/** Small amounts (cents): 0.01 to 1.00 CAD, so that several refunds fit in one payment. */
const smallCents = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constantFrom(1, 2, 5));

/** A completed task of the key without an account, 1.01 to 2.00 CAD, paid in USDC or out of band. */
const recourseTask: fc.Arbitrary<Cmd> = fc
  .tuple(smallCents, fc.constantFrom("usdc", "manual") as fc.Arbitrary<"usdc" | "manual">)
  .map(([c, h]) => new CompletedTask(-1, c + 100, h));

/** The recourse subset's prelude: one or two completed tasks before the random commands. */
export const recoursePrelude: fc.Arbitrary<Cmd[]> = fc.array(recourseTask, { minLength: 1, maxLength: 2 });

/**
 * The recourse subset (the second property of tests/model/money.test.ts): tasks paid in USDC or
 * out of band (the refunds are settled by finance), disputes (the earlier-rule dispute row too),
 * the four resolutions with small amounts, refund settlements (mostly `refunded`) and their
 * retries, the SLA credit job. Several refunds and settlements of one task are the rule here, so
 * a sequence reaches a task's second and third settlement in a few commands.
 */
export function recourseArbitraries(): fc.Arbitrary<Cmd>[] {
  const resolution = fc.constantFrom(
    "redo",
    "reject",
    "partial_refund",
    "partial_refund",
    "full_refund",
  ) as fc.Arbitrary<"redo" | "reject" | "partial_refund" | "full_refund">;
  const outcome = fc.constantFrom("refunded", "refunded", "refunded", "denied") as fc.Arbitrary<
    "refunded" | "denied"
  >;
  const few = fc.nat({ max: 3 });
  const weighted: [number, fc.Arbitrary<Cmd>][] = [
    [1, recourseTask],
    [3, few.map((p) => new Dispute(p))],
    [3, few.map((p) => new EarlierRuleDispute(p))],
    [4, fc.tuple(few, resolution, smallCents).map(([p, res, c]) => new Resolve(p, res, c))],
    [
      5,
      fc
        .tuple(few, outcome, fc.option(smallCents, { freq: 2 }))
        .map(([p, o, c]) => new Settle(p, o, o === "denied" ? null : c)),
    ],
    [1, few.map((p) => new RetrySettle(p))],
    [2, fc.tuple(few, fc.integer({ min: 24, max: 200 })).map(([p, h]) => new SlaCredit(p, h))],
    [
      4,
      fc
        .tuple(few, resolution, smallCents, outcome)
        .map(([p, res, c, o]) => new GrantThenSettle(new Resolve(p, res, c), o)),
    ],
    [
      2,
      fc
        .tuple(few, fc.integer({ min: 24, max: 200 }), outcome)
        .map(([p, h, o]) => new GrantThenSettle(new SlaCredit(p, h), o)),
    ],
  ];
  return weighted.flatMap(([weight, arb]) => Array.from({ length: weight }, () => arb));
}

/** Cents of a numeric column value. */
const c = (v: number | string | null | undefined) => toCents(Number(v ?? 0));

/**
 * The invariants after every command (issue 42 item 3), against the database and the API:
 * - each account's balance = the sum of its ledger entries (and the model's; GET /api/billing too);
 *   ledger entries match their invoices; the dashboard roll-ups recount (tests/helpers/ledger.ts);
 * - per task, everything granted back (dispute refunds, SLA credit, cancellation) and everything
 *   given back (ledger refunds, settlements) ≤ what was paid, whatever the path;
 * - each settlement recorded once (its audit row and its e-mail), each SLA credit once;
 * - credit notes sum to the refunds they document (the ledger's, or the receipt's settlements);
 * - no answer was a 5xx (checked as each command runs).
 */
export async function checkInvariants(m: Model, r: Real, everything = false): Promise<void> {
  // The whole database's ledger, invoices and roll-ups: at the end of each run (a full scan).
  if (everything) await expectLedgerConsistent();
  const db = await getDb();
  const accountIds = m.accounts.map((a) => a.accountId);
  const sums = new Map(
    (
      await db
        .select({
          id: ledgerEntries.accountId,
          sum: sql<string>`coalesce(sum(${ledgerEntries.amountCad}), 0)`,
        })
        .from(ledgerEntries)
        .where(inArray(ledgerEntries.accountId, accountIds))
        .groupBy(ledgerEntries.accountId)
    ).map((row) => [row.id, c(row.sum)]),
  );
  for (const a of m.accounts) {
    const balance = await accountBalance(a.accountId);
    expect(c(balance.balance_cad), `balance of ${a.accountId} vs the model`).toBe(a.balance);
    expect(sums.get(a.accountId) ?? 0, `ledger sum of ${a.accountId} vs its balance`).toBe(a.balance);
    if (!a.erased) {
      const api = answered(r, "billing", await billing(a.key, `action=balance&agent_id=${a.email}`));
      expectStatus("billing", api, 200);
      expect(c(api.body.balance_cad), `GET /api/billing of ${a.accountId}`).toBe(a.balance);
    }
  }
  const ids = m.tasks.map((t) => t.id);
  if (ids.length === 0) return;
  const rows = new Map((await db.select().from(tasks).where(inArray(tasks.id, ids))).map((t) => [t.id, t]));
  const ledger = await db.select().from(ledgerEntries).where(inArray(ledgerEntries.taskId, ids));
  const bills = await db.select().from(invoices).where(inArray(invoices.taskId, ids));
  const credits = await db.select().from(slaCredits).where(inArray(slaCredits.taskId, ids));
  const refunds = await db.select().from(taskRefunds).where(inArray(taskRefunds.taskId, ids));
  const settles = await db
    .select()
    .from(auditLog)
    .where(and(inArray(auditLog.taskId, ids), eq(auditLog.action, "refund.settle")));
  const mails = await db
    .select()
    .from(emails)
    .where(and(inArray(emails.taskId, ids), eq(emails.template, "refund-settled")));
  for (const t of m.tasks) {
    const row = rows.get(t.id)!;
    const of = <T extends { taskId: string | null }>(list: T[]) => list.filter((x) => x.taskId === t.id);
    const charge = -of(ledger)
      .filter((e) => e.kind === "charge")
      .reduce((s, e) => s + c(e.amountCad), 0);
    const receipt = of(bills).find((i) => i.kind === "usdc_receipt");
    const paid = row.paidAt
      ? row.paymentMethod === "account"
        ? charge
        : receipt
          ? c(receipt.amountCad)
          : c(row.priceCad)
      : 0;
    expect(paid, `paid of ${t.id} vs the model`).toBe(t.paid);
    // Granted by recourse, whatever the payment path: credits, owed refunds still pending and
    // settlements refunded (an owed refund closed by a denied settlement was never given).
    const recourse = of(refunds).reduce(
      (s, x) =>
        s +
        (x.kind === "credit" ||
        (x.kind === "owed" && x.settlementId === null) ||
        (x.kind === "settlement" && x.outcome === "refunded")
          ? c(x.amountCad)
          : 0),
      0,
    );

    expect(
      recourse,
      `dispute refunds and SLA credit of ${t.id} vs paid ${fromCents(paid)}`,
    ).toBeLessThanOrEqual(paid);
    // Given back: ledger refunds (prepaid) and settlements refunded (USDC, x402, out of band).
    const ledgerBack = of(ledger)
      .filter((e) => e.kind === "refund")
      .reduce((s, e) => s + c(e.amountCad), 0);
    const mySettles = of(settles);
    const settledBack = mySettles
      .filter((s) => s.details.outcome === "refunded" && s.details.payment_method !== "account")
      .reduce((s, x) => s + c(x.details.amount_cad as number), 0);
    expect(ledgerBack + settledBack, `given back on ${t.id} vs paid ${fromCents(paid)}`).toBeLessThanOrEqual(
      paid,
    );
    expect(settledBack, `settled on ${t.id} vs the model`).toBe(t.paidBy === "account" ? 0 : t.settled);
    // Each settlement once: its audit row, its e-mail.
    expect(mySettles, `settlements of ${t.id}`).toHaveLength(t.settlements);
    if (!row.sandbox) expect(of(mails), `refund-settled e-mails of ${t.id}`).toHaveLength(t.settlements);
    expect(of(credits), `SLA credits of ${t.id}`).toHaveLength(t.slaCredited ? 1 : 0);
    // Credit notes sum to the refunds they document.
    const notes = of(bills)
      .filter((i) => i.kind === "refund")
      .reduce((s, i) => s + Math.abs(c(i.amountCad)), 0);
    const documented = row.paymentMethod === "account" ? ledgerBack : receipt ? settledBack : 0;
    expect(notes, `credit notes of ${t.id}`).toBe(documented);
  }
  await checkRunningTotals(m);
}

/** Per task, the running total (`task_refunds`, lib/billing/task-refunds.ts) agrees with the model. */
async function checkRunningTotals(m: Model): Promise<void> {
  const { refundableCad } = await import("../../lib/billing/task-refunds.js");
  const paid = m.tasks.filter((t) => t.paid > 0);
  if (paid.length === 0) return;
  const db = await getDb();
  await db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(tasks)
      .where(
        inArray(
          tasks.id,
          paid.map((t) => t.id),
        ),
      );
    for (const t of paid) {
      const totals = await refundableCad(tx, rows.find((row) => row.id === t.id)!);
      expect(toCents(totals.leftCad), `left to refund of ${t.id} vs the model`).toBe(leftOf(t));
    }
  });
}

/**
 * Opens `n` prepaid accounts (POST /api/client-account by a key each; the e-mail verified and the
 * key linked directly, as a trusted setup: the sign-in flow is not what this test is about) and a
 * key without an account; returns a fresh model and real.
 */
export async function setupRun(admin: string, run: string, n = 2): Promise<{ model: Model; real: Real }> {
  const db = await getDb();
  const accounts: ModelAccount[] = [];
  for (let i = 0; i < n; i++) {
    const email = `model-${run}-${i}@example.com`;
    const created = await createApiKey({
      name: `model-${run}-${i}`,
      contact: email,
      scopes: [...SCOPES],
      trusted: true,
    });
    const opened = await openAccount(created.api_key);
    if (opened.res.status !== 201)
      throw new Error(`open account: ${opened.res.status} ${JSON.stringify(opened.body)}`);
    const accountId = opened.body.account.account_id as string;
    await db
      .update(clientAccounts)
      .set({ emailVerifiedAt: new Date() })
      .where(eq(clientAccounts.id, accountId));
    await db.update(apiKeys).set({ accountId }).where(eq(apiKeys.id, created.key_id));
    accounts.push({ email, key: created.api_key, accountId, balance: 0, active: false, erased: false });
  }
  const usdcKey = await makeKey([...SCOPES], `model-${run}-usdc@example.com`);
  // Full e-mails go to verified addresses only (lib/mail/unverified-recipients.ts): the requester's is.
  await verifyAddresses(validTask.requester_contact);
  return { model: { accounts, tasks: [], serial: 0, run }, real: { admin, usdcKey, statuses: [] } };
}

/** The options of a run of the model test (environment, or `npm run test:model -- …`). */
export interface ModelRunOptions {
  numRuns: number;
  maxCommands: number;
  seed?: number;
  path?: string;
  /** The counterexample's `replayPath` (fast-check's commands need it with `path` to replay). */
  replayPath?: string;
  /** Called with each passing run's executed sequence (MODEL_LOG=1). */
  log?: (line: string) => void;
}

/**
 * Reads MODEL_RUNS, MODEL_COMMANDS, MODEL_SEED, MODEL_PATH, MODEL_REPLAY_PATH; `defaults` (runs, commands) are the
 * `npm test` run's (6 of up to 25 commands unless given).
 */
export function modelRunOptions(
  env = process.env,
  defaults: { runs: number; commands: number } = { runs: 6, commands: 25 },
): ModelRunOptions {
  const num = (v: string | undefined, d: number) => (v ? Number(v) : d);
  return {
    numRuns: num(env.MODEL_RUNS, defaults.runs),
    maxCommands: num(env.MODEL_COMMANDS, defaults.commands),
    ...(env.MODEL_SEED ? { seed: Number(env.MODEL_SEED) } : {}),
    ...(env.MODEL_PATH ? { path: env.MODEL_PATH } : {}),
    ...(env.MODEL_REPLAY_PATH ? { replayPath: env.MODEL_REPLAY_PATH } : {}),
    ...(env.MODEL_LOG ? { log: (line: string) => console.log(line) } : {}),
  };
}

let runs = 0;

/**
 * Runs the model test: `numRuns` random sequences of up to `maxCommands` commands, each step's
 * invariants checked; on failure fast-check's report gives the seed, the path and the shrunk
 * sequence (replay: MODEL_SEED=… MODEL_PATH=…).
 */
export async function runMoneyModel(
  admin: string,
  options: ModelRunOptions,
  arbitraries: fc.Arbitrary<Cmd>[] = commandArbitraries(2),
  prelude: fc.Arbitrary<Cmd[]> = fc.constant([]),
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      prelude,
      fc.commands(arbitraries, {
        maxCommands: options.maxCommands,
        size: "max",
        ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}),
      }),
      async (first, cmds) => {
        const run = `${process.pid}-${++runs}`;
        const setup = await setupRun(admin, run);
        // The prelude's commands (e.g. the tasks the recourse subset acts on), invariants checked after each.
        for (const cmd of first) if (cmd.check(setup.model)) await cmd.run(setup.model, setup.real);
        await fc.asyncModelRun(() => setup, cmds);
        await checkInvariants(setup.model, setup.real, true);
        if (options.log) options.log(`run ${run}: ${first.map(String).join(",")} ${String(cmds)}`);
      },
    ),
    {
      numRuns: options.numRuns,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.path !== undefined ? { path: options.path } : {}),
      endOnFailure: false,
      verbose: 1,
    },
  );
}
