/**
 * lib/net/wait-until.ts loads @vercel/functions' own `waitUntil` (its wait-until.js, not the
 * package index): on Vercel the promise reaches the request context's `waitUntil` (the context
 * the platform publishes under `Symbol.for("@vercel/request-context")`, as the package reads it);
 * elsewhere the call does nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../../lib/net/wait-until.js";

const CONTEXT = Symbol.for("@vercel/request-context");
const globals = globalThis as Record<symbol, unknown>;

afterEach(() => {
  delete globals[CONTEXT];
});

describe("waitUntil", () => {
  it("hands the promise to the platform's request context", () => {
    const handed: Promise<unknown>[] = [];
    globals[CONTEXT] = { get: () => ({ waitUntil: (p: Promise<unknown>) => handed.push(p) }) };
    const promise = Promise.resolve("done");
    waitUntil(promise);
    expect(handed).toEqual([promise]);
  });

  it("does nothing outside Vercel", () => {
    expect(() => waitUntil(Promise.resolve())).not.toThrow();
  });

  it("refuses what is not a promise, as the package does", () => {
    expect(() => waitUntil("later" as unknown as Promise<unknown>)).toThrow(TypeError);
  });
});
