/** x402 settings: the default of X402_ENABLED, and the production profile's refusal of x402 without a settler. */
import { describe, expect, it } from "vitest";
import { parseConfig, productionProblems, productionProfile } from "../../lib/config.js";
import { x402Enabled } from "../../lib/payments/x402/protocol.js";

const PRODUCTION = {
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
};
const KEY = `0x${"11".repeat(32)}`;

describe("x402 settings", () => {
  it("is on by default exactly when a relayer key or a facilitator URL is set; X402_ENABLED decides when given", () => {
    expect(x402Enabled(parseConfig({}))).toBe(false);
    expect(x402Enabled(parseConfig({ X402_RELAYER_PRIVATE_KEY: KEY }))).toBe(true);
    expect(x402Enabled(parseConfig({ X402_FACILITATOR_URL: "https://x402.example.com/facilitator" }))).toBe(
      true,
    );
    expect(x402Enabled(parseConfig({ X402_RELAYER_PRIVATE_KEY: KEY, X402_ENABLED: "false" }))).toBe(false);
    expect(x402Enabled(parseConfig({ X402_ENABLED: "true" }))).toBe(true);
    expect(() => parseConfig({ X402_RELAYER_PRIVATE_KEY: "0x1234" })).toThrow(/X402_RELAYER_PRIVATE_KEY/);
  });

  it("refuses x402 enabled without a relayer key or a facilitator URL in the production profile", () => {
    const on = parseConfig({ ...PRODUCTION, X402_ENABLED: "true" });
    expect(productionProfile(on).missing).toEqual(["X402_RELAYER_PRIVATE_KEY"]);
    expect(productionProblems(on)).toMatch(
      /X402_RELAYER_PRIVATE_KEY \(or X402_FACILITATOR_URL, or X402_ENABLED=false\)/,
    );
    for (const extra of [
      { X402_RELAYER_PRIVATE_KEY: KEY },
      { X402_FACILITATOR_URL: "https://x402.example.com/facilitator" },
    ]) {
      expect(
        productionProblems(parseConfig({ ...PRODUCTION, X402_ENABLED: "true", ...extra })),
      ).toBeUndefined();
    }
    expect(productionProblems(parseConfig(PRODUCTION))).toBeUndefined();
  });
});
