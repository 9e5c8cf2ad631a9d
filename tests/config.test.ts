import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../lib/config.js";

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
});
