/**
 * Every e-mail template (lib/mail/templates/*.txt), in French and English, rendered with every
 * combination of its sections, and every message the task-event composer
 * (lib/mail/compose-task-email.ts) can produce: no template code (`{{`, `}}`) and no dispute or
 * refund code (`partial_refund`, `not_done`, …) ever reaches the reader; reasons and resolutions
 * are the words of lib/mail/labels.ts. The "dispute resolved" e-mail used to show
 * `{{#owed}}…{{/owed}}` (a section nested three deep).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config.js";
import {
  DISPUTE_REASONS,
  DISPUTE_RESOLUTIONS,
  type Lang,
  REFUND_STATUSES,
} from "../../lib/db/schema/enums.js";
import type { TaskEventType } from "../../lib/db/schema/event-registry.js";
import type { Task, TaskEvent } from "../../lib/db/schema/index.js";
import { composeTaskEmail, type ProofFileSummary } from "../../lib/mail/compose-task-email.js";
import { DISPUTE_REASON_LABELS, DISPUTE_RESOLUTION_LABELS } from "../../lib/mail/labels.js";
import { renderTemplate, TEMPLATE_NAMES, type TemplateValues } from "../../lib/mail/templates.js";

const LANGS: Lang[] = ["fr", "en"];
const TEMPLATE_DIR = path.resolve(import.meta.dirname, "../../lib/mail/templates");

/** Every subset of `names`, as the set of those that are on. */
function* subsets(names: readonly string[]): Generator<Set<string>> {
  for (let mask = 0; mask < 2 ** names.length; mask++) {
    yield new Set(names.filter((_, i) => mask & (2 ** i)));
  }
}

/** The cartesian product of the option lists of `axes`. */
function* product<T extends Record<string, readonly unknown[]>>(
  axes: T,
): Generator<{ [K in keyof T]: T[K][number] }> {
  const keys = Object.keys(axes);
  const pick = function* (i: number, acc: Record<string, unknown>): Generator<Record<string, unknown>> {
    if (i === keys.length) {
      yield { ...acc };
      return;
    }
    for (const option of axes[keys[i]!]!) yield* pick(i + 1, { ...acc, [keys[i]!]: option });
  };
  yield* pick(0, {}) as Generator<{ [K in keyof T]: T[K][number] }>;
}

/** Refuses template code in a rendered message (`where` names the case in the failure). */
function expectNoTemplateCode(where: string, message: { subject: string; text: string }) {
  expect(message.subject, `${where}: subject`).not.toMatch(/\{\{|\}\}/);
  expect(message.text, `${where}: body`).not.toMatch(/\{\{|\}\}/);
}

/**
 * The codes a reader of `lang` must never see: every dispute reason and resolution and refund
 * status whose words in that language differ from the code (English "late" is both).
 */
function codesRefusedIn(lang: Lang): string[] {
  const differs = (table: Record<string, string>) =>
    Object.entries(table)
      .filter(([code, words]) => code !== words)
      .map(([code]) => code);
  return [
    ...differs(DISPUTE_REASON_LABELS[lang]),
    ...differs(DISPUTE_RESOLUTION_LABELS[lang]),
    ...REFUND_STATUSES,
  ];
}

function expectNoCode(where: string, lang: Lang, message: { subject: string; text: string }) {
  for (const code of codesRefusedIn(lang)) {
    expect(`${message.subject}\n${message.text}`, `${where}: code ${code}`).not.toMatch(
      new RegExp(`\\b${code}\\b`),
    );
  }
}

/** Templates about no task (an export's file or failure): they name their job, not a task id. */
const NOT_ABOUT_A_TASK: ReadonlySet<string> = new Set(["export-ready", "export-failed"]);

describe("every template, every section combination", () => {
  it.each(TEMPLATE_NAMES.flatMap((name) => LANGS.map((lang) => [name, lang] as const)))(
    "%s (%s) never shows template code",
    (name, lang) => {
      const source = readFileSync(path.join(TEMPLATE_DIR, `${name}.${lang}.txt`), "utf8");
      const sections = [...new Set([...source.matchAll(/\{\{[#^](\w+)\}\}/g)].map((m) => m[1]!))];
      const names = [...new Set([...source.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!))];
      let rendered = 0;
      for (const on of subsets(sections)) {
        const values: TemplateValues = {};
        for (const n of names) values[n] = `[${n}]`;
        values.task_id = "TASK-1";
        for (const s of sections) values[s] = on.has(s) ? (values[s] ?? true) : null;
        const message = renderTemplate(name, lang, values);
        expectNoTemplateCode(`${name}.${lang} with {${[...on].join(", ")}}`, message);
        if (NOT_ABOUT_A_TASK.has(name)) expect(message.subject).toContain("[job_id]");
        else if (!sections.includes("task_id") || on.has("task_id")) expect(message.text).toContain("TASK-1");
        rendered++;
      }
      expect(rendered).toBe(2 ** sections.length);
    },
  );

  it("found the sections of the dispute-resolved message, nested three deep", () => {
    const source = readFileSync(path.join(TEMPLATE_DIR, "recourse.fr.txt"), "utf8");
    expect(source).toMatch(/\{\{#resolved\}\}[\s\S]*\{\{#refund_amount_cad\}\}[\s\S]*\{\{#owed\}\}/);
  });
});

const NOW = new Date("2026-03-15T18:30:00Z");

/** A task as the composer reads it; `overrides` set the fields a case varies. */
function task(lang: Lang, overrides: Partial<Task> = {}): Task {
  return {
    id: "TASK-20260315-0001",
    sandbox: false,
    lang,
    serviceType: "SVC-01",
    status: "completed",
    locationAddress: "1000 Rue Sherbrooke O, Montréal, QC H3A 3G4",
    taskDescription: "Photograph the storefront.",
    requesterContact: "req@example.com",
    urgency: "standard",
    estimateCad: 120,
    priceCad: 120,
    counterOfferAmount: null,
    needsCounterOffer: false,
    reviewDeadline: NOW,
    reviewReason: null,
    paymentUsdcMicro: null,
    paymentExpiresAt: NOW,
    completedAt: NOW,
    operatorNotes: null,
    failureReason: null,
    refundStatus: "none",
    ...overrides,
  } as Task;
}

function event(type: TaskEventType, payload: Record<string, unknown> = {}): TaskEvent {
  return { id: "evt_1", type, payload, createdAt: NOW } as unknown as TaskEvent;
}

/** The composer's message for `type`, which must send one. */
function compose(
  type: TaskEventType,
  t: Task,
  payload: Record<string, unknown> = {},
  files: ProofFileSummary[] = [],
  payUrl?: string,
) {
  const row = composeTaskEmail(event(type, payload), t, files, payUrl);
  expect(row, `${type} sends an e-mail`).not.toBeNull();
  return { subject: row!.subject, text: row!.textBody };
}

describe("every message the task-event composer produces", () => {
  afterEach(() => {
    for (const name of ["X402_ENABLED", "BASE_RPC_URL", "BASE_WALLET"]) delete process.env[name];
    resetConfig();
  });

  it.each(LANGS)("task lifecycle messages (%s)", (lang) => {
    const check = (where: string, message: { subject: string; text: string }) => {
      expectNoTemplateCode(where, message);
      expectNoCode(where, lang, message);
    };
    for (const needs of [true, false]) {
      check(`created ${needs}`, compose("task.created", task(lang, { needsCounterOffer: needs })));
    }
    for (const x402 of [false, true]) {
      if (x402) {
        process.env.X402_ENABLED = "true";
        process.env.BASE_RPC_URL = "http://127.0.0.1:9";
        process.env.BASE_WALLET = `0x${"11".repeat(20)}`;
      }
      resetConfig();
      for (const c of product({
        type: ["task.accepted", "task.counter_offered"] as const,
        reason: [null, "Longer trip"],
        payUrl: [undefined, "https://example.test/pay/#task_id=T"],
      })) {
        const t = task(lang, {
          status: c.type === "task.accepted" ? "accepted_pending_payment" : "counter_offered",
          paymentUsdcMicro: 120_000_000n,
          reviewReason: c.reason,
        });
        const message = compose(c.type, t, {}, [], c.payUrl);
        check(`${c.type} ${JSON.stringify(c)} x402=${x402}`, message);
        expect(message.text.includes("x402")).toBe(x402);
      }
    }
    for (const c of product({ payload: [null, "Out of scope"], review: [null, "Too far"] })) {
      const message = compose(
        "task.rejected",
        task(lang, { status: "rejected", reviewReason: c.review }),
        c.payload ? { reason: c.payload } : {},
      );
      check(`rejected ${JSON.stringify(c)}`, message);
    }
    const file = { id: "pf_1", filename: "front.png", mimeType: "image/png", sizeBytes: 2048 };
    for (const c of product({ notes: [null, "All good."], files: [[], [file]] })) {
      check(
        `completed ${JSON.stringify(c)}`,
        compose("task.completed", task(lang, { operatorNotes: c.notes }), {}, c.files),
      );
    }
    for (const c of product({ reason: [null, "Access refused"], notes: [null, "Gate locked."] })) {
      check(
        `failed ${JSON.stringify(c)}`,
        compose("task.failed", task(lang, { status: "failed", operatorNotes: c.notes }), {
          reason: c.reason,
        }),
      );
    }
    check("payment expired", compose("task.payment_expired", task(lang, { status: "payment_expired" })));
  });

  it.each(LANGS)("a dispute received names its reason in words (%s)", (lang) => {
    for (const reason of DISPUTE_REASONS) {
      const message = compose("task.disputed", task(lang), { reason, evidence_file_count: 0 });
      expectNoTemplateCode(`disputed ${reason}`, message);
      expectNoCode(`disputed ${reason}`, lang, message);
      expect(message.text).toContain(`: ${DISPUTE_REASON_LABELS[lang][reason]}.`);
    }
  });

  it.each(LANGS)("a dispute resolved: every resolution, refund and note combination (%s)", (lang) => {
    let combinations = 0;
    for (const c of product({
      resolution: DISPUTE_RESOLUTIONS,
      refund: [null, "pending", "none", "refunded"] as const,
      followUp: [null, "TASK-20260316-0002"],
      note: [null, "The photos were of the wrong building."],
    })) {
      const where = `resolved ${JSON.stringify(c)}`;
      const message = compose("task.dispute_resolved", task(lang), {
        resolution: c.resolution,
        reason: c.note,
        refund_amount_cad: c.refund === null ? null : 30.15,
        refund_status: c.refund,
        follow_up_task_id: c.followUp,
      });
      expectNoTemplateCode(where, message);
      expectNoCode(where, lang, message);
      expect(message.text, where).toContain(`: ${DISPUTE_RESOLUTION_LABELS[lang][c.resolution]}.`);
      if (c.refund !== null) {
        const owed =
          lang === "fr" ? "envoyé sous peu au portefeuille payeur" : "sent to the paying wallet shortly";
        const credited =
          lang === "fr" ? "crédité à votre compte prépayé" : "credited to your prepaid account";
        expect(message.text, where).toMatch(/30[,.]15/);
        expect(message.text.includes(owed), where).toBe(c.refund === "pending");
        expect(message.text.includes(credited), where).toBe(c.refund !== "pending");
      }
      if (c.note) expect(message.text, where).toContain(c.note);
      combinations++;
    }
    expect(combinations).toBe(DISPUTE_RESOLUTIONS.length * 4 * 2 * 2);
  });

  it.each(LANGS)("an SLA credit, owed or credited (%s)", (lang) => {
    for (const refund of ["pending", "none"] as const) {
      const message = compose("task.sla_credited", task(lang), {
        days_late: 2,
        percent: 20,
        credited_cad: 24,
        paid_as: refund === "pending" ? "refund_owed" : "account_credit",
        refund_status: refund,
      });
      expectNoTemplateCode(`credited ${refund}`, message);
      expectNoCode(`credited ${refund}`, lang, message);
      expect(message.text).toMatch(/24[,.]00/);
    }
  });
});
