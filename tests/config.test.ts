import { describe, expect, it } from "vitest";
import {
  ConfigError,
  databaseIsLocal,
  parseConfig,
  productionProblems,
  productionProfile,
  relaxedSettings,
} from "../lib/config.js";

describe("config", () => {
  it("has the spec's limits as defaults", () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      PORT: 3000,
      DATA_DIR: ".data",
      KEY_PREFIX: "svc",
      TASK_PREFIX: "TASK",
      RATE_LIMIT_KEY_PER_MIN: 60,
      RATE_LIMIT_ANON_PER_MIN: 20,
      KEY_CREATIONS_PER_IP_PER_HOUR: 3,
      LOGIN_ATTEMPTS_PER_IP_PER_HOUR: 5,
      TRANSPORT_SPEED_KMH: 60,
      ALLOW_PRIVATE_CALLBACKS: false,
    });
  });

  it.each([
    [{ PORT: "abc" }, /PORT/],
    [{ PORT: "70000" }, /PORT/],
    [{ KEY_PREFIX: "Bad-Prefix" }, /KEY_PREFIX/],
    [{ DATABASE_DRIVER: "mysql" }, /DATABASE_DRIVER/],
    [{ ALLOW_PRIVATE_CALLBACKS: "maybe" }, /ALLOW_PRIVATE_CALLBACKS/],
    [{ ALLOW_PRIVATE_CALLBACKS: "true", NODE_ENV: "production" }, /refused when NODE_ENV=production/],
    [{ DISTANCE_PROVIDER: "osrm" }, /OSRM_URL/],
    [{ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" }, /UPSTASH_REDIS_REST_TOKEN/],
    [{ CONTACT_EMAIL: "not-an-email" }, /CONTACT_EMAIL/],
    [{ WEBHOOK_ENDPOINT_CONCURRENCY: "9", WEBHOOK_HOST_CONCURRENCY: "16" }, /at most half of WEBHOOK_HOST/],
    [{ WEBHOOK_DESTINATION_CONCURRENCY: "4" }, /renamed WEBHOOK_ENDPOINT_CONCURRENCY/],
    [{ STREAM_SLOT_LEASE_SECONDS: "1" }, /STREAM_SLOT_LEASE_SECONDS/],
    [
      { STREAM_SLOT_LEASE_SECONDS: "20" },
      /STREAM_SLOT_LEASE_SECONDS: at least twice STREAM_HEARTBEAT_SECONDS/,
    ],
    [
      { STREAM_SLOT_LEASE_SECONDS: "5", STREAM_HEARTBEAT_SECONDS: "3" },
      /STREAM_SLOT_LEASE_SECONDS: at least twice STREAM_HEARTBEAT_SECONDS/,
    ],
  ])("%j is refused naming the variable", (env, re) => {
    expect(() => parseConfig(env as Record<string, string>)).toThrow(ConfigError);
    expect(() => parseConfig(env as Record<string, string>)).toThrow(re);
  });

  it("reads booleans and numbers from strings", () => {
    const c = parseConfig({ ALLOW_PRIVATE_CALLBACKS: "1", TRANSPORT_SPEED_KMH: "80", PORT: "0" });
    expect(c.ALLOW_PRIVATE_CALLBACKS).toBe(true);
    expect(c.TRANSPORT_SPEED_KMH).toBe(80);
    expect(c.PORT).toBe(0);
  });

  it.each([
    [undefined, true],
    ["postgres://postgres@127.0.0.1:5432/postgres", true],
    ["postgres://u:p@localhost/db", true],
    ["postgres://u:p@127.8.9.10/db", true],
    ["postgres://u:p@[::1]:5432/db", true],
    ["postgres:///db?host=/var/run/postgresql", true],
    ["postgres://u:p@db.example.com/db", false],
    ["postgres://u:p@10.0.0.5/db", false],
    ["postgres://u:p@ep-x.us-east-2.aws.neon.tech/db", false],
    ["not a url", false],
  ])("DATABASE_URL %s is local: %s", (url, local) => {
    expect(databaseIsLocal(url)).toBe(local);
  });

  it.each([
    [{}, false, []],
    [{ DATABASE_URL: "postgres://postgres@127.0.0.1/postgres" }, false, []],
    [
      { NODE_ENV: "production" },
      true,
      [
        "JWT_SECRET",
        "WEBHOOK_SECRET_KEY",
        "CRON_SECRET",
        "TURNSTILE_SECRET_KEY",
        "RECEIPT_SIGNING_KEY",
        "UPSTASH_REDIS_REST_URL",
        "UPSTASH_REDIS_REST_TOKEN",
        "RESEND_API_KEY",
      ],
    ],
    [
      { DATABASE_URL: "postgres://u:p@db.example.com/db" },
      true,
      [
        "JWT_SECRET",
        "WEBHOOK_SECRET_KEY",
        "CRON_SECRET",
        "TURNSTILE_SECRET_KEY",
        "RECEIPT_SIGNING_KEY",
        "UPSTASH_REDIS_REST_URL",
        "UPSTASH_REDIS_REST_TOKEN",
        "RESEND_API_KEY",
      ],
    ],
    [
      { DATABASE_URL: "postgres://u:p@db.example.com/db", MAIL_DISABLED: "true" },
      true,
      [
        "JWT_SECRET",
        "WEBHOOK_SECRET_KEY",
        "CRON_SECRET",
        "TURNSTILE_SECRET_KEY",
        "RECEIPT_SIGNING_KEY",
        "UPSTASH_REDIS_REST_URL",
        "UPSTASH_REDIS_REST_TOKEN",
      ],
    ],
    [
      { VERCEL: "1" },
      true,
      [
        "JWT_SECRET",
        "WEBHOOK_SECRET_KEY",
        "CRON_SECRET",
        "TURNSTILE_SECRET_KEY",
        "RECEIPT_SIGNING_KEY",
        "UPSTASH_REDIS_REST_URL",
        "UPSTASH_REDIS_REST_TOKEN",
        "RESEND_API_KEY",
      ],
    ],
  ])("production profile of %j: active %s, missing %j", (env, active, missing) => {
    const profile = productionProfile(parseConfig(env as Record<string, string>));
    expect(profile.active).toBe(active);
    expect(profile.missing).toEqual(missing);
  });

  it("refuses ALLOW_PRIVATE_CALLBACKS in the production profile and names it", () => {
    const config = parseConfig({
      DATABASE_URL: "postgres://u:p@db.example.com/db",
      JWT_SECRET: "x".repeat(32),
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString("base64"),
      CRON_SECRET: "cron",
      TURNSTILE_SECRET_KEY: "ts",
      RECEIPT_SIGNING_KEY:
        '{"crv":"Ed25519","d":"ZZL_xZ2ib6Yfxx0suKVHd_dbk1lfxR064j7V_zVp7WY","x":"ZrkjtQv68voP88G3RFdNTIicgPZDaeS3gtYEgbXz6ZY","kty":"OKP"}',
      RESEND_API_KEY: "re_test",
      UPSTASH_REDIS_REST_URL: "https://example.upstash.io",
      UPSTASH_REDIS_REST_TOKEN: "token",
      ALLOW_PRIVATE_CALLBACKS: "true",
    });
    expect(productionProfile(config).missing).toEqual([]);
    expect(productionProfile(config).refused).toEqual(["ALLOW_PRIVATE_CALLBACKS"]);
    expect(productionProblems(config)).toMatch(/ALLOW_PRIVATE_CALLBACKS=true is refused/);
    expect(productionProblems(config)).not.toContain("u:p@");
    expect(relaxedSettings(config)).toEqual([]);
  });

  it("lists the relaxed settings of a development run", () => {
    expect(relaxedSettings(parseConfig({})).join("\n")).toMatch(
      /JWT_SECRET unset[\s\S]*WEBHOOK_SECRET_KEY unset[\s\S]*CRON_SECRET unset[\s\S]*TURNSTILE_SECRET_KEY unset[\s\S]*RECEIPT_SIGNING_KEY unset/,
    );
  });

  it("requires the shared store in the production profile wherever it runs, naming both variables; a local run keeps the in-process one (issue 47 item 4)", () => {
    for (const env of [{ NODE_ENV: "production" }, { DATABASE_URL: "postgres://u:p@db.example.com/db" }]) {
      expect(productionProblems(parseConfig(env))).toMatch(
        /missing .*UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN/,
      );
      const withStore = parseConfig({
        ...env,
        UPSTASH_REDIS_REST_URL: "https://example.upstash.io",
        UPSTASH_REDIS_REST_TOKEN: "token",
      });
      expect(productionProfile(withStore).missing).not.toContain("UPSTASH_REDIS_REST_URL");
      expect(productionProfile(withStore).missing).not.toContain("UPSTASH_REDIS_REST_TOKEN");
    }
    const local = parseConfig({ DATABASE_URL: "postgres://postgres@127.0.0.1/postgres" });
    expect(productionProblems(local)).toBeUndefined();
    expect(relaxedSettings(local)).toContainEqual(
      expect.stringMatching(/UPSTASH_REDIS_REST_URL unset: rate limits, stream slots, the webhook breaker/),
    );
  });
});
