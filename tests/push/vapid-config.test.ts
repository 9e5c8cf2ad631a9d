/**
 * The VAPID settings (issue 44 item 6; docs/configuration.md): a pair of the shape web-push prints
 * is accepted, half a pair or a malformed key is refused naming the variable, and the production
 * profile without keys turns push off instead of refusing to serve (docs/decisions.md 59).
 */

import { afterEach, describe, expect, it } from "vitest";
import webpush from "web-push";
import { ConfigError, parseConfig } from "../../lib/config.js";
import { resetVapidDetails, vapidDetails } from "../../lib/push/vapid.js";

afterEach(() => resetVapidDetails());

describe("VAPID settings", () => {
  const pair = webpush.generateVAPIDKeys();

  it("accepts a generated pair and uses it, with CONTACT_EMAIL as the default subject", async () => {
    const config = parseConfig({ VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey });
    expect(await vapidDetails(config)).toEqual({ ...pair, subject: `mailto:${config.CONTACT_EMAIL}` });
  });

  it("refuses half a pair, a malformed key and a subject that is not mailto: or https:", () => {
    expect(() => parseConfig({ VAPID_PUBLIC_KEY: pair.publicKey })).toThrow(
      /VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY/,
    );
    expect(() => parseConfig({ VAPID_PUBLIC_KEY: "abc", VAPID_PRIVATE_KEY: pair.privateKey })).toThrow(
      ConfigError,
    );
    expect(() => parseConfig({ VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: "abc" })).toThrow(
      /VAPID_PRIVATE_KEY: must be/,
    );
    expect(() => parseConfig({ VAPID_SUBJECT: "ops@example.com" })).toThrow(/VAPID_SUBJECT/);
  });

  it("the production profile without keys has push off; development generates a pair in memory", async () => {
    expect(await vapidDetails(parseConfig({ NODE_ENV: "production", DATA_DIR: "memory://" }))).toBeNull();
    resetVapidDetails();
    const dev = await vapidDetails(parseConfig({ DATA_DIR: "memory://" }));
    expect(Buffer.from(dev!.publicKey, "base64url")).toHaveLength(65);
  });
});
