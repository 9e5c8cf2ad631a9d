/**
 * The exchange-rate provider against a loopback stand-in of the Bank of Canada Valet API
 * (its JSON format for /observations/FXUSDCAD/json), and approval's use of it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as estimate } from "../../api/estimate.js";
import { parseConfig, resetConfig } from "../../lib/config.js";
import { getDb } from "../../lib/db/client.js";
import { exchangeRates, tasks } from "../../lib/db/schema/index.js";
import { fromDomainError } from "../../lib/http/errors.js";
import { cadToMicroUsdc } from "../../lib/money.js";
import { currentCadUsdRate, fetchValetRate, rateProvider } from "../../lib/payments/exchange-rate.js";
import { useTestDatabase } from "../helpers/db.js";
import { makeKey } from "../helpers/keys.js";
import { call, expectEnvelope } from "../helpers/request.js";
import { getStatus, reviewTask, submitTask, validTask } from "../helpers/tasks.js";

useTestDatabase();

let server: Server;
let valetUrl: string;
let requests: string[] = [];
let reply: { status: number; body: string } = { status: 200, body: "" };
const saved = { ...process.env };

/** Valet's JSON for one FXUSDCAD observation. */
function valetBody(date: string, value: string) {
  return JSON.stringify({
    terms: { url: "https://www.bankofcanada.ca/terms/" },
    seriesDetail: {
      FXUSDCAD: {
        label: "USD/CAD",
        description: "US dollar to Canadian dollar daily exchange rate",
        dimension: { key: "d", name: "date" },
      },
    },
    observations: [{ d: date, FXUSDCAD: { v: value } }],
  });
}

/**
 * The UTC date `offsetDays` from `at` (YYYY-MM-DD). A test takes `at` once, so that all its dates
 * are of one day even when it runs across midnight.
 */
function dayOf(at: number, offsetDays = 0) {
  return new Date(at + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

function useValet(extra: Record<string, string> = {}) {
  Object.assign(process.env, { EXCHANGE_RATE_PROVIDER: "valet", VALET_URL: `${valetUrl}/valet`, ...extra });
  resetConfig();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? "");
    res.writeHead(reply.status, { "content-type": "application/json" }).end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  valetUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  resetConfig();
  requests = [];
  await (await getDb()).delete(exchangeRates);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("provider choice", () => {
  it("is fixed outside production and valet in production unless configured", () => {
    expect(rateProvider(parseConfig({ NODE_ENV: "test" }))).toBe("fixed");
    expect(rateProvider(parseConfig({ NODE_ENV: "production", CRON_SECRET: "x" }))).toBe("valet");
    expect(rateProvider(parseConfig({ NODE_ENV: "production", EXCHANGE_RATE_PROVIDER: "fixed" }))).toBe(
      "fixed",
    );
    expect(() => parseConfig({ EXCHANGE_RATE_PROVIDER: "ecb" })).toThrow(/EXCHANGE_RATE_PROVIDER/);
    expect(() => parseConfig({ EXCHANGE_RATE_MAX_AGE_HOURS: "0" })).toThrow(/EXCHANGE_RATE_MAX_AGE_HOURS/);
  });

  it("fixed: the configured rate, as of now", async () => {
    Object.assign(process.env, { CAD_USD_FALLBACK_RATE: "0.7342" });
    resetConfig();
    const before = Date.now();
    const quote = await currentCadUsdRate();
    const after = Date.now();
    expect(quote.rate_cad_usd).toBe(0.7342);
    expect(quote.rate_source).toMatch(/^fixed/);
    // As of the call, however long it took.
    expect(Date.parse(quote.as_of)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(quote.as_of)).toBeLessThanOrEqual(after);
    expect(requests).toHaveLength(0);
  });
});

describe("valet provider", () => {
  it("inverts FXUSDCAD to USD per CAD, dated 16:30 Toronto time, and caches it", async () => {
    const today = dayOf(Date.now());
    reply = { status: 200, body: valetBody(today, "1.3950") };
    useValet();
    const quote = await currentCadUsdRate();
    expect(requests).toEqual(["/valet/observations/FXUSDCAD/json?recent=1"]);
    expect(quote.rate_cad_usd).toBe(0.71684588); // 1 / 1.3950, 8 decimals
    expect(quote.rate_source).toBe("Bank of Canada Valet FXUSDCAD");
    expect(quote.as_of).toMatch(new RegExp(`^${today}T2[01]:30:00`)); // 16:30 EST/EDT in UTC
    const rows = await (await getDb()).select().from(exchangeRates);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      pair: "CADUSD",
      rate: 0.71684588,
      source: "Bank of Canada Valet FXUSDCAD",
    });
    // Cached: no second request within EXCHANGE_RATE_REFRESH_MINUTES.
    expect(await currentCadUsdRate()).toEqual(quote);
    expect(requests).toHaveLength(1);
    // Refreshed after it.
    reply = { status: 200, body: valetBody(today, "1.4000") };
    const later = await currentCadUsdRate({ now: new Date(Date.now() + 61 * 60_000) });
    expect(later.rate_cad_usd).toBe(0.71428571);
    expect(requests).toHaveLength(2);
  });

  it("uses the cached rate while Valet fails, until it is stale", async () => {
    reply = { status: 200, body: valetBody(dayOf(Date.now(), -1), "1.3800") };
    useValet();
    const first = await currentCadUsdRate();
    reply = { status: 503, body: "{}" };
    const cached = await currentCadUsdRate({ now: new Date(Date.now() + 2 * 3_600_000) });
    expect(cached).toEqual(first);
    expect(requests).toHaveLength(2);
    const error = await currentCadUsdRate({ now: new Date(Date.now() + 7 * 86_400_000) }).catch((e) => e);
    expect(error.code).toBe("EXCHANGE_RATE_UNAVAILABLE");
    expect(fromDomainError(error).status).toBe(503);
    expect(error.message).toContain("Valet API failed: Valet answered HTTP 503");
  });

  it.each([
    ["a non-JSON body", 200, "<html>maintenance</html>", /JSON|Unexpected token/],
    ["no observations", 200, JSON.stringify({ observations: [] }), /no observation date/],
    ["an implausible value", 200, valetBody(dayOf(Date.now()), "0"), /not a plausible rate/],
    [
      "a missing value",
      200,
      JSON.stringify({ observations: [{ d: dayOf(Date.now()) }] }),
      /not a plausible rate/,
    ],
    ["HTTP 404", 404, "{}", /HTTP 404/],
  ])("rejects %s from Valet", async (_label, status, body, message) => {
    reply = { status, body };
    useValet();
    await expect(fetchValetRate()).rejects.toThrow(message);
    const error = await currentCadUsdRate().catch((e) => e);
    expect(error.code).toBe("EXCHANGE_RATE_UNAVAILABLE");
  });

  it("times out a Valet that does not answer, after EXCHANGE_RATE_TIMEOUT_MS", async () => {
    const hang = createServer(() => {});
    await new Promise<void>((resolve) => hang.listen(0, "127.0.0.1", resolve));
    useValet({
      VALET_URL: `http://127.0.0.1:${(hang.address() as AddressInfo).port}`,
      EXCHANGE_RATE_TIMEOUT_MS: "200",
    });
    // The configured bound is the one the request gets (not the 3 s default): checked on the
    // abort signal itself rather than with a stopwatch, which a loaded machine would fool.
    const timeout = vi.spyOn(AbortSignal, "timeout");
    try {
      await expect(fetchValetRate()).rejects.toThrow(/timeout|aborted/i);
      expect(timeout).toHaveBeenCalledWith(200);
    } finally {
      timeout.mockRestore();
      hang.closeAllConnections();
      await new Promise<void>((resolve) => hang.close(() => resolve()));
    }
  });
});

describe("approval and the rate", () => {
  it("stores the live rate on the task and converts the price exactly", async () => {
    const today = dayOf(Date.now());
    reply = { status: 200, body: valetBody(today, "1.3950") };
    useValet();
    const admin = await makeKey(["admin"]);
    const { body: created } = await submitTask();
    const review = await reviewTask(admin, { task_id: created.task_id, action: "approve", price_cad: 250 });
    expect(review.res.status).toBe(200);
    const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, created.task_id));
    expect(task).toMatchObject({ exchangeRate: 0.71684588, rateSource: "Bank of Canada Valet FXUSDCAD" });
    expect(task!.rateAsOf?.toISOString().slice(0, 10)).toBe(today);
    expect(task!.paymentUsdcMicro).toBe(cadToMicroUsdc(250, 0.71684588)); // 179.21147 USDC
    expect(task!.paymentUsdcMicro).toBe(179_211_470n);
  });

  it("refuses approval with a stale rate (503 EXCHANGE_RATE_UNAVAILABLE); estimates and sandbox still work", async () => {
    reply = { status: 200, body: valetBody(dayOf(Date.now(), -10), "1.3950") };
    useValet();
    const admin = await makeKey(["admin"]);
    const { body: created } = await submitTask();
    const { res, body } = await reviewTask(admin, { task_id: created.task_id, action: "approve" });
    const error = expectEnvelope(body, res, 503, "EXCHANGE_RATE_UNAVAILABLE");
    expect(error.message).toContain("No CAD→USD exchange rate newer than 120 h");
    expect(error.max_age_hours).toBe(120);
    expect(res.headers.get("retry-after")).toBe("300");
    const [task] = await (await getDb()).select().from(tasks).where(eq(tasks.id, created.task_id));
    expect(task!.status).toBe("received");

    const est = await call(estimate, "/api/estimate?location=Laval&hours=2");
    expect(est.res.status).toBe(200);
    expect(est.body.usd.rate_source).toMatch(/^fallback/);
    expect(est.body.usd.rate_cad_usd).toBe(0.71);

    const { body: sandbox } = await submitTask(validTask, { "x-service-mode": "sandbox" });
    const { body: advanced } = await getStatus(sandbox.task_id, { "x-service-mode": "sandbox" });
    expect(advanced.status).toBe("accepted_pending_payment");
  });
});
