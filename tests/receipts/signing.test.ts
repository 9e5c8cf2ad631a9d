/**
 * Receipt signing and verification (lib/receipts) without a database: every claim and the
 * signature are tamper-evident, a proof file that changes no longer matches, keys rotate with the
 * old ones kept for verification, and the development key is generated once into DATA_DIR.
 */

import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getConfig, resetConfig } from "../../lib/config.js";
import { DEV_KEY_FILE, generateReceiptKey, receiptJwks, resetReceiptKeys } from "../../lib/receipts/keys.js";
import {
  issueReceipt,
  proofMatches,
  type ReceiptClaims,
  type ReceiptTask,
  receiptClaims,
  verifyReceipt,
} from "../../lib/receipts/receipt.js";

const saved = { ...process.env };
afterEach(() => {
  for (const k of ["RECEIPT_SIGNING_KEY", "RECEIPT_PREVIOUS_KEYS", "DATA_DIR"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetConfig();
  resetReceiptKeys();
});

function useKeys(signing: object, previous?: object[]) {
  process.env.RECEIPT_SIGNING_KEY = JSON.stringify(signing);
  if (previous) process.env.RECEIPT_PREVIOUS_KEYS = JSON.stringify(previous);
  else delete process.env.RECEIPT_PREVIOUS_KEYS;
  resetConfig();
  resetReceiptKeys();
}

const photo = Buffer.from("a proof photo, pretend JPEG bytes");
const report = Buffer.from('{"ok":true}');
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

const task: ReceiptTask = {
  id: "TASK-R1-ABC",
  sandbox: false,
  serviceType: "SVC-01",
  locationAddress: "1000 Rue Sherbrooke O, Montréal",
  location: { matched: "Montreal", coordinates: [-73.57, 45.5] },
  priceCad: 379.67,
  counterOfferAmount: null,
  paymentMethod: "usdc",
  paymentNetwork: "base",
  paymentTxHash: `0x${"ab".repeat(32)}`,
  dispatchedAt: new Date("2026-11-20T14:00:00Z"),
  completedAt: new Date("2026-11-20T16:30:00Z"),
  operatorNotes: "Storefront photographed.",
  reviewDeadline: new Date("2026-11-19T12:00:00Z"),
  executionDeadline: new Date("2026-11-22T12:00:00Z"),
};
const proof = [
  { sha256: sha(photo), size: photo.length, type: "image/jpeg" },
  { sha256: sha(report), size: report.length, type: "application/json" },
];

/** `jws` with its payload replaced by `claims` (the signature kept). */
function withPayload(jws: string, claims: unknown): string {
  const [header, , signature] = jws.split(".");
  return [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
}

describe("receipt claims", () => {
  it("carry the task's facts, hashes of the proof and of the operator's notes", () => {
    const claims = receiptClaims(task, "completed", proof, new Date("2026-11-20T16:30:01Z"));
    expect(claims).toEqual({
      task_id: "TASK-R1-ABC",
      status: "completed",
      sandbox: false,
      service_type: "SVC-01",
      location: {
        address: "1000 Rue Sherbrooke O, Montréal",
        matched: "Montreal",
        coordinates: [-73.57, 45.5],
      },
      price_cad: 379.67,
      paid: { method: "usdc", network: "base", tx_hash: task.paymentTxHash },
      dispatched_at: "2026-11-20T14:00:00.000Z",
      completed_at: "2026-11-20T16:30:00.000Z",
      proof,
      operator_notes_sha256: sha(Buffer.from("Storefront photographed.")),
      sla: {
        review_deadline: "2026-11-19T12:00:00.000Z",
        execution_deadline: "2026-11-22T12:00:00.000Z",
        credit_percent_per_day: 10,
        cap_percent: 50,
      },
      site_visit: null,
      issued_at: "2026-11-20T16:30:01.000Z",
    });
    const failed = receiptClaims({ ...task, operatorNotes: null }, "failed", [], new Date());
    expect(failed).toMatchObject({
      status: "failed",
      completed_at: null,
      proof: [],
      operator_notes_sha256: null,
    });
  });
});

describe("signing and tampering", () => {
  it("verifies an untouched receipt against the JWK Set, and fails on any changed claim", async () => {
    useKeys(await generateReceiptKey());
    const jwks = await receiptJwks();
    const jws = await issueReceipt(task, "completed", proof, new Date());
    const { claims, kid } = await verifyReceipt(jws, jwks);
    expect(kid).toBe(jwks.keys[0]!.kid);
    expect(
      proofMatches(claims, [
        { bytes: photo, type: "image/jpeg" },
        { bytes: report, type: "application/json" },
      ]),
    ).toBe(true);

    const tampered: [string, (c: ReceiptClaims) => void][] = [
      ["task_id", (c) => (c.task_id = "TASK-OTHER")],
      ["status", (c) => (c.status = "failed")],
      ["sandbox", (c) => (c.sandbox = true)],
      ["service_type", (c) => (c.service_type = "SVC-02")],
      ["location", (c) => (c.location.address = "elsewhere")],
      ["price_cad", (c) => (c.price_cad = 1)],
      ["paid", (c) => (c.paid.tx_hash = "0xdead")],
      ["dispatched_at", (c) => (c.dispatched_at = null)],
      ["completed_at", (c) => (c.completed_at = "2026-11-21T00:00:00.000Z")],
      ["proof", (c) => (c.proof[0]!.sha256 = "0".repeat(64))],
      ["proof order", (c) => c.proof.reverse()],
      ["operator_notes_sha256", (c) => (c.operator_notes_sha256 = null)],
      ["sla", (c) => (c.sla.execution_deadline = "2030-01-01T00:00:00.000Z")],
      ["issued_at", (c) => (c.issued_at = "2020-01-01T00:00:00.000Z")],
    ];
    for (const [name, change] of tampered) {
      const copy = structuredClone(claims);
      change(copy);
      await expect(verifyReceipt(withPayload(jws, copy), jwks), name).rejects.toThrow();
    }
    // a flipped signature byte, and a header naming another type
    const [h, p, sig] = jws.split(".");
    const flipped = Buffer.from(sig!, "base64url");
    flipped[0]! ^= 1;
    await expect(verifyReceipt([h, p, flipped.toString("base64url")].join("."), jwks)).rejects.toThrow();
    const otherHeader = Buffer.from(JSON.stringify({ alg: "EdDSA", kid: kid, typ: "JWT" })).toString(
      "base64url",
    );
    await expect(verifyReceipt([otherHeader, p, sig].join("."), jwks)).rejects.toThrow();
  });

  it("no longer matches a proof file with one byte changed, a file missing, or a different type", async () => {
    useKeys(await generateReceiptKey());
    const { claims } = await verifyReceipt(
      await issueReceipt(task, "completed", proof, new Date()),
      await receiptJwks(),
    );
    const changed = Buffer.from(photo);
    changed[3]! ^= 0x20;
    expect(
      proofMatches(claims, [
        { bytes: changed, type: "image/jpeg" },
        { bytes: report, type: "application/json" },
      ]),
    ).toBe(false);
    expect(proofMatches(claims, [{ bytes: photo, type: "image/jpeg" }])).toBe(false);
    expect(
      proofMatches(claims, [
        { bytes: photo, type: "image/png" },
        { bytes: report, type: "application/json" },
      ]),
    ).toBe(false);
  });
});

describe("rotation", () => {
  it("signs with the new key and keeps verifying receipts of the retired one", async () => {
    const oldKey = await generateReceiptKey();
    useKeys(oldKey);
    const oldReceipt = await issueReceipt(task, "completed", proof, new Date());
    const { d: _d, ...oldPublic } = oldKey;

    const newKey = await generateReceiptKey();
    useKeys(newKey, [oldPublic]);
    const jwks = await receiptJwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([newKey.kid, oldKey.kid]);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
    const newReceipt = await issueReceipt(task, "completed", proof, new Date());
    expect((await verifyReceipt(newReceipt, jwks)).kid).toBe(newKey.kid);
    expect((await verifyReceipt(oldReceipt, jwks)).kid).toBe(oldKey.kid);

    // dropping the retired key ends its receipts' verification
    useKeys(newKey);
    await expect(verifyReceipt(oldReceipt, await receiptJwks())).rejects.toThrow();
  });

  it("refuses a signing key that is not a private Ed25519 JWK", () => {
    process.env.RECEIPT_SIGNING_KEY = JSON.stringify({ kty: "OKP", crv: "Ed25519", x: "abc" });
    resetConfig();
    expect(() => getConfig()).toThrow(/RECEIPT_SIGNING_KEY/);
  });
});

describe("development key", () => {
  it("is generated once into DATA_DIR (owner-only file) and reused", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "h4-receipts-"));
    try {
      delete process.env.RECEIPT_SIGNING_KEY;
      process.env.DATA_DIR = dir;
      resetConfig();
      resetReceiptKeys();
      const first = await receiptJwks();
      const file = path.join(dir, DEV_KEY_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(file, "utf8")).signing.kid).toBe(first.keys[0]!.kid);
      resetReceiptKeys();
      expect((await receiptJwks()).keys[0]!.kid).toBe(first.keys[0]!.kid);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
