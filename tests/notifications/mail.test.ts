/**
 * Requester e-mail: one message per lifecycle event in the task's language, none in
 * sandbox, and the Resend path checked against a loopback server speaking Resend's HTTP
 * API (POST /emails → {"id"}), asserting what the SDK sent.
 */
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyPurposeToken } from "../../lib/auth/jwt.js";
import { publicBaseUrl, resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { emails, tasks } from "../../lib/db/schema/index.js";
import { processOutbox } from "../../lib/events/process-outbox.js";
import { sendQueuedEmails } from "../../lib/mail/send-queued-emails.js";
import { PAY_TOKEN_AUDIENCE } from "../../lib/payments/pay-link.js";
import { expireOverduePayments } from "../../lib/tasks/expire-payments.js";
import { payPageView } from "../../lib/tasks/pay-page.js";
import { useTestDatabase } from "../helpers/db.js";
import { keyHeaders, makeKey } from "../helpers/keys.js";
import {
  completeTask,
  pngProof,
  recordPayment,
  reviewTask,
  submitTask,
  validTask,
} from "../helpers/tasks.js";
import { verifyAddresses } from "../helpers/verified.js";
import { type Receiver, startReceiver } from "./receiver.js";

useTestDatabase();

let admin: string;
let agent: string;

beforeAll(async () => {
  resetConfig(); // OUTBOX_KICK unset: off under NODE_ENV=test; the test drives the outbox
  admin = await makeKey(["admin"]);
  agent = await makeKey(["audit_only", "task_create"]);
  // Full-text e-mails go to verified addresses only (the unverified rule has its own tests).
  await verifyAddresses(
    "req@example.com",
    validTask.requester_contact,
    "buyer@example.com",
    "reject@example.com",
    "flaky@example.com",
  );
});

async function mailOf(taskId: string) {
  await processOutbox();
  const db = await getDb();
  return db.select().from(emails).where(eq(emails.taskId, taskId)).orderBy(emails.createdAt);
}

/**
 * `text` links the pay page of `taskId` after `label`: `<PUBLIC_BASE_URL>/pay/#task_id=…&pay_token=…`,
 * the token a pay token (audience task-pay) for that task, which the pay page's read accepts.
 */
async function expectPayLink(text: string, taskId: string, label: string): Promise<void> {
  const line = text.split("\n").find((l) => l.startsWith(label));
  expect(line, `a line starting "${label}"`).toBeDefined();
  const url = new URL(line!.slice(label.length).trim());
  expect(`${url.origin}${url.pathname}`).toBe(`${publicBaseUrl()}/pay/`);
  const fragment = new URLSearchParams(url.hash.slice(1));
  expect(fragment.get("task_id")).toBe(taskId);
  const claims = await verifyPurposeToken(fragment.get("pay_token")!, PAY_TOKEN_AUDIENCE);
  expect(claims?.sub).toBe(taskId);
  // No credential but the pay token: a stranger holding the e-mailed link.
  const view = await payPageView(taskId, { caller: null }, fragment.get("pay_token")!);
  expect(view).toMatchObject({ task_id: taskId, awaiting_payment: true });
}

describe("requester e-mail (embedded outbox)", () => {
  it("sends confirmation, payment instructions and deliverables in English, with attachments", async () => {
    const { body: t } = await submitTask(
      { ...validTask, lang: "en", requester_contact: "Req@Example.com" },
      keyHeaders(agent),
    );
    let mail = await mailOf(t.task_id);
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({
      template: "task-received",
      lang: "en",
      toAddress: "req@example.com",
      status: "sent",
      provider: "outbox",
    });
    expect(mail[0]!.subject).toBe(`Task ${t.task_id} received`);
    expect(mail[0]!.textBody).toContain("379.67");

    await reviewTask(admin, { task_id: t.task_id, action: "approve", price_cad: 250 });
    mail = await mailOf(t.task_id);
    const pay = mail.find((m) => m.template === "payment-instructions")!;
    const db = await getDb();
    const [row] = await db.select().from(tasks).where(eq(tasks.id, t.task_id));
    const usdc = (Number(row!.paymentUsdcMicro) / 1e6).toFixed(6);
    expect(pay.subject).toContain("payment instructions");
    expect(pay.textBody).toContain("$250.00 CAD");
    expect(pay.textBody).toContain(`${usdc} USDC`);
    expect(pay.textBody).toMatch(/Pay before: +\w+ \d+, \d{4}/);
    // The pay page link: its pay token opens this task's payment block and nothing else.
    await expectPayLink(pay.textBody, t.task_id, "Pay from a browser with your wallet: ");

    await recordPayment(admin, { task_id: t.task_id });
    await completeTask(admin, {
      task_id: t.task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      operator_notes: "Storefront photographed",
      proof_files: [pngProof("front.png")],
    });
    mail = await mailOf(t.task_id);
    const done = mail.find((m) => m.template === "completion")!;
    expect(done.subject).toBe(`Task ${t.task_id} completed: your deliverables`);
    expect(done.textBody).toContain("Storefront photographed");
    expect(done.textBody).toContain("front.png (image/png");
    expect(done.attachments).toEqual([
      { proof_file_id: expect.stringMatching(/^pf_/), filename: "front.png", content_type: "image/png" },
    ]);
    // paid sends nothing; one message per event even when the outbox runs again
    expect(mail.map((m) => m.template)).toEqual(["task-received", "payment-instructions", "completion"]);
  });

  it("leaves the pay page link out, and still writes the e-mail, when no pay token can be signed", async () => {
    const { body: t } = await submitTask({ ...validTask, lang: "en" }, keyHeaders(agent));
    await reviewTask(admin, { task_id: t.task_id, action: "approve" });
    // The production profile without JWT_SECRET: pay tokens cannot be signed (lib/auth/jwt.ts).
    const saved = { NODE_ENV: process.env.NODE_ENV, JWT_SECRET: process.env.JWT_SECRET };
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    process.env.NODE_ENV = "production";
    delete process.env.JWT_SECRET;
    resetConfig();
    let mail: Awaited<ReturnType<typeof mailOf>>;
    let errors = "";
    try {
      mail = await mailOf(t.task_id);
      errors = logged.mock.calls.flat().join(" ");
    } finally {
      process.env.NODE_ENV = saved.NODE_ENV;
      if (saved.JWT_SECRET !== undefined) process.env.JWT_SECRET = saved.JWT_SECRET;
      resetConfig();
      logged.mockRestore();
    }
    const pay = mail.find((m) => m.template === "payment-instructions")!;
    expect(pay.textBody).toContain("Pay exactly:");
    expect(pay.textBody).not.toContain("Pay from a browser");
    expect(errors).toContain(`pay page link of ${t.task_id} left out`);
  });

  it("sends counter-offer, rejection, failure and expiry messages in French", async () => {
    const a = (await submitTask({ ...validTask, budget_limit: 100 }, keyHeaders(agent))).body;
    await reviewTask(admin, {
      task_id: a.task_id,
      action: "counter_offer",
      counter_offer_amount: 420,
      reason: "Trajet plus long",
    });
    const offer = (await mailOf(a.task_id)).find((m) => m.template === "counter-offer")!;
    expect(offer.subject).toMatch(/^Tâche .* : contre-offre de 420,00\s\$ CAD$/);
    expect(offer.textBody).toContain("Trajet plus long");
    await expectPayLink(offer.textBody, a.task_id, "Payer depuis un navigateur avec votre portefeuille : ");

    const b = (await submitTask(validTask, keyHeaders(agent))).body;
    await reviewTask(admin, { task_id: b.task_id, action: "reject", reason: "Hors de nos compétences" });
    const no = (await mailOf(b.task_id)).find((m) => m.template === "rejection")!;
    expect(no.subject).toBe(`Tâche ${b.task_id} non retenue`);
    expect(no.textBody).toContain("Motif : Hors de nos compétences");

    const c = (await submitTask(validTask, keyHeaders(agent))).body;
    await reviewTask(admin, { task_id: c.task_id, action: "approve" });
    await recordPayment(admin, { task_id: c.task_id });
    await completeTask(admin, { task_id: c.task_id, action: "fail", reason: "Accès refusé" });
    const failed = (await mailOf(c.task_id)).find((m) => m.template === "task-failed")!;
    expect(failed.textBody).toContain("Accès refusé");

    const d = (await submitTask(validTask, keyHeaders(agent))).body;
    await reviewTask(admin, { task_id: d.task_id, action: "approve" });
    await expireOverduePayments(new Date(Date.now() + 49 * 3600_000));
    const expired = (await mailOf(d.task_id)).find((m) => m.template === "payment-expired")!;
    expect(expired.subject).toBe(`Tâche ${d.task_id} : délai de paiement expiré`);
  });

  it("sends a message queued earlier in the worker's own millisecond, not one queued after it", async () => {
    // The column keeps microseconds, a JavaScript Date milliseconds (the verification e-mail is
    // queued with the column default and sent at once).
    const db = await getDb();
    await db.insert(emails).values([
      { id: "em_same_ms", toAddress: "req@example.com", subject: "a", textBody: "a", lang: "en" },
      { id: "em_next_ms", toAddress: "req@example.com", subject: "b", textBody: "b", lang: "en" },
    ]);
    await db.execute(sql`update emails set next_attempt_at = case id
      when 'em_same_ms' then '2026-01-01T00:00:00.000400Z'::timestamptz
      else '2026-01-01T00:00:00.001000Z'::timestamptz end where id in ('em_same_ms', 'em_next_ms')`);
    expect(await sendQueuedEmails({ now: new Date("2026-01-01T00:00:00.000Z") })).toEqual({
      sent: 1,
      failed: 0,
    });
    const rows = await db
      .select()
      .from(emails)
      .where(inArray(emails.id, ["em_same_ms", "em_next_ms"]));
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      em_same_ms: "sent",
      em_next_ms: "queued",
    });
  });

  it.each([
    ["a development run", {}, true],
    ["on Vercel with NODE_ENV unset", { VERCEL: "1", MAIL_DISABLED: "true" }, false],
    ["under NODE_ENV=production", { NODE_ENV: "production", MAIL_DISABLED: "true" }, false],
    [
      "with a remote database",
      { DATABASE_URL: "postgres://u:p@db.example.com/db", MAIL_DISABLED: "true" },
      false,
    ],
  ] as const)("prints a one-time code in the log only in a development run: %s", async (_, env, printed) => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    resetConfig();
    const lines: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      lines.push(args.join(" "));
    });
    try {
      const db = await getDb();
      const id = `em_code_${lines.length}_${Math.random().toString(36).slice(2, 8)}`;
      const code = `vfy_${"C".repeat(40)}`;
      await db.insert(emails).values({
        id,
        toAddress: "code@example.com",
        subject: "Verify your e-mail",
        textBody: `Your code: ${code}`,
        lang: "en",
      });
      await sendQueuedEmails();
      const log = lines.join("\n");
      expect(log).toContain(id);
      expect(log.includes(code)).toBe(printed);
      const [row] = await db.select().from(emails).where(eq(emails.id, id));
      expect(row!.textBody).not.toContain(code); // blanked once sent, in every profile
    } finally {
      spy.mockRestore();
      for (const k of Object.keys(env)) delete process.env[k];
      Object.assign(process.env, saved);
      resetConfig();
    }
  });

  it("sends nothing for sandbox tasks", async () => {
    const { body: t } = await submitTask(validTask, keyHeaders(agent, { "x-service-mode": "sandbox" }));
    expect(await mailOf(t.task_id)).toHaveLength(0);
  });
});

describe("Resend", () => {
  let resend: Receiver;
  beforeAll(async () => {
    let n = 0;
    resend = await startReceiver((req) => {
      const body = JSON.parse(req.rawBody || "{}");
      if (body.to?.[0] === "reject@example.com") {
        return {
          status: 422,
          body: JSON.stringify({ statusCode: 422, name: "validation_error", message: "Invalid `to` field." }),
        };
      }
      if (body.to?.[0] === "flaky@example.com") {
        return {
          status: 500,
          body: JSON.stringify({ statusCode: 500, name: "internal_server_error", message: "boom" }),
        };
      }
      return { status: 200, body: JSON.stringify({ id: `re_${++n}` }) };
    });
    process.env.RESEND_API_KEY = "re_test_key";
    process.env.RESEND_BASE_URL = resend.url;
    process.env.EMAIL_FROM = "Tasks <tasks@example.com>";
    resetConfig();
  });
  afterAll(async () => {
    await resend.close();
    delete process.env.RESEND_API_KEY;
    delete process.env.RESEND_BASE_URL;
    delete process.env.EMAIL_FROM;
    resetConfig();
  });

  it("sends through the SDK with the key, an idempotency key and the proof files attached", async () => {
    const { body: t } = await submitTask(
      { ...validTask, lang: "en", requester_contact: "buyer@example.com" },
      keyHeaders(agent),
    );
    await reviewTask(admin, { task_id: t.task_id, action: "approve", price_cad: 200 });
    await recordPayment(admin, { task_id: t.task_id });
    const proof = pngProof("site.png");
    await completeTask(admin, {
      task_id: t.task_id,
      action: "complete",
      no_visit_reason: "Test: completed without a site visit",
      proof_files: [proof],
    });
    const mail = await mailOf(t.task_id);
    expect(mail.every((m) => m.status === "sent" && m.provider === "resend")).toBe(true);
    expect(mail.map((m) => m.providerMessageId)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^re_/)]),
    );
    // Paid before the outbox ran: the payment instructions are skipped (nothing left to pay).
    // One outbox pass wrote both rows in one transaction (same created_at), so compare as a set.
    expect(mail.map((m) => m.template).sort()).toEqual(["completion", "task-received"]);
    const sent = resend.requests.filter((r) => JSON.parse(r.rawBody).to[0] === "buyer@example.com");
    expect(sent).toHaveLength(2);
    for (const r of sent) {
      expect(r.method).toBe("POST");
      expect(r.path).toBe("/emails");
      expect(r.headers.authorization).toBe("Bearer re_test_key");
    }
    const done = mail.find((m) => m.template === "completion")!;
    const req = sent.find((r) => r.headers["idempotency-key"] === done.id)!;
    const body = JSON.parse(req.rawBody);
    expect(body).toMatchObject({
      from: "Tasks <tasks@example.com>",
      to: ["buyer@example.com"],
      subject: done.subject,
      text: done.textBody,
      reply_to: "operations@example.com",
    });
    expect(body.attachments).toEqual([
      { filename: "site.png", content: proof.content, content_type: "image/png" },
    ]);
  });

  it("gives up on a permanent 4xx and retries a 5xx later", async () => {
    const before = Date.now();
    const a = (await submitTask({ ...validTask, requester_contact: "reject@example.com" }, keyHeaders(agent)))
      .body;
    const b = (await submitTask({ ...validTask, requester_contact: "flaky@example.com" }, keyHeaders(agent)))
      .body;
    const [rejected] = await mailOf(a.task_id);
    expect(rejected).toMatchObject({ status: "failed", attempts: 1 });
    expect(rejected!.error).toMatch(/resend 422/);
    const [flaky] = await mailOf(b.task_id);
    expect(flaky).toMatchObject({ status: "queued", attempts: 1 });
    // Retried a minute after its attempt (made after `before`), however long this test took.
    expect(flaky!.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    // Not due yet: a worker run just before its retry time sends nothing to the failing address.
    const justBefore = new Date(flaky!.nextAttemptAt.getTime() - 1);
    expect((await sendQueuedEmails({ now: justBefore })).failed).toBe(0);
  });
});
