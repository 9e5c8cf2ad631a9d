/** Signatures, secret encryption at rest and the e-mail template renderer (pure functions). */
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderMustache, renderTemplate, TEMPLATE_NAMES } from "../../lib/mail/templates.js";
import { decryptSecret, encryptSecret, newWebhookSecret } from "../../lib/webhooks/secret-box.js";
import { generateTestHeaders, signPayload, verifySignature } from "../../lib/webhooks/signature.js";

const secret = "whsec_test_secret";
const body = '{"event_id":"evt_1","event":"task.paid","created_at":"2026-01-01T00:00:00.000Z","data":{}}';
const now = new Date("2026-01-01T00:00:00Z");
const ts = Math.floor(now.getTime() / 1000);

describe("signPayload / verifySignature", () => {
  it('signs HMAC-SHA256 over timestamp + "." + rawBody (known vector)', async () => {
    const { createHmac } = await import("node:crypto");
    const expected = createHmac("sha256", secret).update(`${ts}.${body}`).digest("hex");
    expect(signPayload(secret, ts, body)).toBe(expected);
    expect(signPayload(secret, ts, Buffer.from(body))).toBe(expected);
  });

  it("accepts a fresh, correct signature", () => {
    const header = `sha256=${signPayload(secret, ts, body)}`;
    expect(verifySignature({ secret, header, timestamp: String(ts), rawBody: body, now })).toEqual({
      ok: true,
      timestamp: ts,
    });
  });

  it.each([
    ["missing header", { header: undefined }, "missing_header"],
    ["missing timestamp", { timestamp: null }, "missing_header"],
    ["non-numeric timestamp", { timestamp: "abc" }, "bad_timestamp"],
    ["timestamp 301 s old", { timestamp: String(ts - 301) }, "stale_timestamp"],
    ["timestamp 301 s ahead", { timestamp: String(ts + 301) }, "stale_timestamp"],
    ["no sha256= prefix", { header: signPayload(secret, ts, body) }, "malformed_header"],
    ["short hex", { header: "sha256=abcd" }, "malformed_header"],
    ["other secret", { secret: "whsec_other" }, "mismatch"],
    ["altered body", { rawBody: body.replace("paid", "failed") }, "mismatch"],
  ])("rejects %s", (_, change, reason) => {
    const base = {
      secret,
      header: `sha256=${signPayload(secret, ts, body)}`,
      timestamp: String(ts),
      rawBody: body,
      now,
    };
    expect(verifySignature({ ...base, ...change })).toEqual({ ok: false, reason });
  });

  it("rejects a replayed delivery whose timestamp was swapped for a fresh one", () => {
    const old = ts - 3600;
    const header = `sha256=${signPayload(secret, old, body)}`;
    expect(verifySignature({ secret, header, timestamp: String(ts), rawBody: body, now })).toEqual({
      ok: false,
      reason: "mismatch",
    });
  });

  it("honours a custom tolerance and several signatures in one header", () => {
    const header = `sha256=${"0".repeat(64)}, sha256=${signPayload(secret, ts - 500, body)}`;
    expect(
      verifySignature({ secret, header, timestamp: ts - 500, rawBody: body, now, toleranceSeconds: 600 }).ok,
    ).toBe(true);
  });

  it("generateTestHeaders produces headers the verifier accepts", () => {
    const { headers, body: sent } = generateTestHeaders({
      secret,
      payload: { event_id: "evt_9", event: "task.completed", data: { task_id: "TASK-1" } },
    });
    expect(headers["X-Service-Event"]).toBe("task.completed");
    expect(headers["X-Service-Delivery"]).toBe("evt_9");
    expect(
      verifySignature({
        secret,
        header: headers["X-Service-Signature"],
        timestamp: headers["X-Service-Timestamp"],
        rawBody: sent,
      }).ok,
    ).toBe(true);
  });
});

describe("secret encryption at rest", () => {
  it("round-trips, hides the secret and binds the ciphertext to its webhook id", () => {
    const s = newWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    const stored = encryptSecret(s, "wh_a");
    expect(stored).not.toContain(s.slice(6));
    expect(stored.startsWith("v1.")).toBe(true);
    expect(decryptSecret(stored, "wh_a")).toBe(s);
    expect(encryptSecret(s, "wh_a")).not.toBe(stored); // random IV
    expect(() => decryptSecret(stored, "wh_b")).toThrow();
    expect(() => decryptSecret(stored, "wh_a", Buffer.alloc(32, 7))).toThrow();
    expect(() => decryptSecret("garbage", "wh_a")).toThrow(/format/);
  });
});

describe("templates", () => {
  it("expands values once and keeps or drops sections", () => {
    const t = "A {{x}}\n{{#on}}\nshown {{x}}\n{{/on}}\n{{^on}}\nhidden\n{{/on}}\nend{{#y}} y={{y}}{{/y}}";
    expect(renderMustache(t, { x: "{{on}}", on: true }, "text")).toBe("A {{on}}\nshown {{on}}\nend");
    expect(renderMustache(t, { x: 1, on: false, y: "z" }, "text")).toBe("A 1\nhidden\nend y=z");
  });

  it("expands sections nested three deep, inline and on their own lines", () => {
    const t = "{{#a}}\n{{#b}}\nB{{#c}} c{{/c}}{{^c}} not c{{/c}}.\n{{/b}}\n{{/a}}\nend";
    expect(renderMustache(t, { a: true, b: "x", c: true }, "text")).toBe("B c.\nend");
    expect(renderMustache(t, { a: true, b: "x", c: false }, "text")).toBe("B not c.\nend");
    expect(renderMustache(t, { a: true, b: "", c: true }, "text")).toBe("end");
    expect(renderMustache(t, { a: 0, b: "x", c: true }, "text")).toBe("end");
  });

  it("escapes values for HTML bodies only, and never reads an inherited name", () => {
    const value = `Tom & "Jerry" <b>'s</b>`;
    expect(renderMustache("<p>{{v}}</p>", { v: value }, "html")).toBe(
      "<p>Tom &amp; &quot;Jerry&quot; &lt;b&gt;&#39;s&lt;&#x2F;b&gt;</p>",
    );
    expect(renderMustache("{{v}}", { v: value }, "text")).toBe(value);
    expect(renderMustache("[{{constructor}}][{{toString}}]", {}, "text")).toBe("[][]");
    expect(() => renderMustache("{{#open}}never closed", {}, "text")).toThrow(/Unclosed section/);
  });

  it("has an fr and an en file for every template, each rendering without leftover tags", () => {
    const dir = path.resolve(import.meta.dirname, "../../lib/mail/templates");
    const files = readdirSync(dir).sort();
    expect(files).toEqual(TEMPLATE_NAMES.flatMap((n) => [`${n}.en.txt`, `${n}.fr.txt`]).sort());
    for (const name of TEMPLATE_NAMES) {
      for (const lang of ["fr", "en"] as const) {
        const values = { task_id: "TASK-1", job_id: "JOB-1", reason: "r" };
        const { subject, text } = renderTemplate(name, lang, values);
        expect(subject.length).toBeGreaterThan(5);
        expect(subject).not.toContain("{{");
        expect(text).not.toMatch(/\{\{|\}\}/);
        // The export e-mails name their export job (in the subject), every other one its task.
        if (name.startsWith("export-")) expect(subject).toContain("JOB-1");
        else expect(text).toContain("TASK-1");
      }
    }
  });
});
