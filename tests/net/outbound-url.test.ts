import { describe, expect, it, vi } from "vitest";
import { resetConfig } from "../../lib/config.js";
import { DomainError } from "../../lib/errors.js";
import { fromDomainError } from "../../lib/http/errors.js";
import { checkOutboundUrl, type LookupFn } from "../../lib/net/outbound-url.js";

/** A resolver answering from a table; unknown names fail like getaddrinfo. */
function fakeLookup(table: Record<string, string[]>): LookupFn {
  return async (hostname) => {
    const addresses = table[hostname];
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    }
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

const lookup = fakeLookup({
  "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "mixed.example.com": ["93.184.216.34", "10.0.0.5"],
  "mixed6.example.com": ["2606:2800:220:1:248:1893:25c8:1946", "::ffff:127.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
  localhost: ["127.0.0.1", "::1"],
  "empty.example.com": [],
});

const strict = { allowPrivate: false, lookup };

/** What a refusal adds in a development run (these tests run outside the production profile). */
const HINT =
  " (for local development, set ALLOW_PRIVATE_CALLBACKS=true to allow http:// and loopback or private addresses)";

async function refusal(raw: string, opts = strict, field = "callback_url"): Promise<DomainError> {
  const error = await checkOutboundUrl(raw, field, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  const domainError = error as DomainError;
  expect(fromDomainError(domainError).status).toBe(422);
  expect(domainError.field).toBe(field);
  return domainError;
}

describe("checkOutboundUrl", () => {
  it("accepts an https URL whose every address is public, and returns it normalized", async () => {
    const url = await checkOutboundUrl("https://HOOKS.example.com/a?b=1", "callback_url", strict);
    expect(url.href).toBe("https://hooks.example.com/a?b=1");
  });

  it("accepts a public IP literal without resolving", async () => {
    const noLookup: LookupFn = () => Promise.reject(new Error("must not resolve"));
    await expect(
      checkOutboundUrl("https://8.8.8.8/x", "url", { allowPrivate: false, lookup: noLookup }),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      checkOutboundUrl("https://[2001:4860:4860::8888]/x", "url", { allowPrivate: false, lookup: noLookup }),
    ).resolves.toBeInstanceOf(URL);
  });

  it("refuses http://", async () => {
    const e = await refusal("http://hooks.example.com/");
    expect(e.code).toBe("VALIDATION_ERROR");
    expect(e.message).toBe(`callback_url must be an https:// URL${HINT}`);
  });

  it.each(["ftp://hooks.example.com/", "javascript:alert(1)", "file:///etc/passwd", "data:text/plain,x"])(
    "refuses the scheme of %s",
    async (raw) => {
      expect((await refusal(raw)).code).toBe("VALIDATION_ERROR");
    },
  );

  it.each(["not a url", "/relative/path", "hooks.example.com/x", ""])(
    "refuses non-absolute %j",
    async (raw) => {
      const e = await refusal(raw);
      expect(e.code).toBe("VALIDATION_ERROR");
      expect(e.message).toBe("callback_url must be an absolute URL");
    },
  );

  it.each([
    "https://user:pass@hooks.example.com/",
    "https://user@hooks.example.com/",
    "https://:pw@hooks.example.com/",
  ])("refuses userinfo in %s", async (raw) => {
    const e = await refusal(raw);
    expect(e.message).toBe("callback_url must not contain a user name or password");
  });

  it("refuses over 2048 characters with FIELD_TOO_LONG, and accepts exactly 2048", async () => {
    const base = "https://hooks.example.com/";
    const e = await refusal(base + "a".repeat(2049 - base.length));
    expect(e.code).toBe("FIELD_TOO_LONG");
    expect(e.message).toBe("callback_url exceeds 2048 characters");
    await expect(
      checkOutboundUrl(base + "a".repeat(2048 - base.length), "callback_url", strict),
    ).resolves.toBeInstanceOf(URL);
  });

  it.each([
    "https://127.0.0.1/",
    "https://10.0.0.1/",
    "https://169.254.169.254/latest/meta-data/",
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:10.0.0.1]/",
    "https://[fd00:ec2::254]/",
    "https://[fe80::1]/",
    "https://2130706433/", // decimal 127.0.0.1
    "https://0x7f.1/", // hex
    "https://0177.0.0.1/", // octal
    "https://127.1/",
    "https://0/", // 0.0.0.0
    "https://192.0.2.10/",
  ])("refuses the IP literal of %s", async (raw) => {
    const noLookup: LookupFn = () => Promise.reject(new Error("must not resolve"));
    const e = await refusal(raw, { allowPrivate: false, lookup: noLookup });
    expect(e.code).toBe("VALIDATION_ERROR");
    expect(e.message).toBe(`callback_url resolves to a private or reserved address${HINT}`);
  });

  it.each(["mixed.example.com", "mixed6.example.com", "metadata.example.com", "localhost"])(
    "refuses %s: one of its addresses is forbidden",
    async (host) => {
      const e = await refusal(`https://${host}/hook`);
      expect(e.message).toBe(`callback_url resolves to a private or reserved address${HINT}`);
    },
  );

  it("names the field it was given", async () => {
    const e = await refusal("https://mixed.example.com/", strict, "url");
    expect(e.message).toBe(`url resolves to a private or reserved address${HINT}`);
    expect(e.details).toEqual([{ field: "url", code: "VALIDATION_ERROR", message: e.message }]);
  });

  it.each(["nxdomain.example.com", "empty.example.com"])(
    "refuses %s when DNS has no answer",
    async (host) => {
      const e = await refusal(`https://${host}/`);
      expect(e.code).toBe("VALIDATION_ERROR");
      expect(e.message).toBe(`callback_url host ${host} could not be resolved`);
    },
  );

  it("resolves with the real resolver by default (localhost is loopback)", async () => {
    const e = await refusal("https://localhost/", { allowPrivate: false } as typeof strict);
    expect(e.message).toBe(`callback_url resolves to a private or reserved address${HINT}`);
  });

  it("leaves the ALLOW_PRIVATE_CALLBACKS hint out in the production profile", async () => {
    vi.stubEnv("NODE_ENV", "production");
    resetConfig();
    try {
      expect((await refusal("http://hooks.example.com/")).message).toBe(
        "callback_url must be an https:// URL",
      );
      expect((await refusal("https://localhost/")).message).toBe(
        "callback_url resolves to a private or reserved address",
      );
    } finally {
      vi.unstubAllEnvs();
      resetConfig();
    }
  });

  describe("allowPrivate (ALLOW_PRIVATE_CALLBACKS)", () => {
    const dev = { allowPrivate: true, lookup };
    it.each([
      "http://127.0.0.1:3000/hook",
      "http://localhost:8080/",
      "https://[::1]/",
      "http://192.168.1.20/",
    ])("accepts %s", async (raw) => {
      await expect(checkOutboundUrl(raw, "callback_url", dev)).resolves.toBeInstanceOf(URL);
    });
    it("still refuses the metadata address, userinfo and other schemes", async () => {
      expect((await refusal("http://169.254.169.254/", dev)).message).toBe(
        "callback_url resolves to a private or reserved address",
      );
      await refusal("http://u:p@127.0.0.1/", dev);
      await refusal("ftp://127.0.0.1/", dev);
    });
  });

  it("defaults allowPrivate to ALLOW_PRIVATE_CALLBACKS", async () => {
    const saved = process.env.ALLOW_PRIVATE_CALLBACKS;
    try {
      process.env.ALLOW_PRIVATE_CALLBACKS = "false";
      resetConfig();
      await refusal("http://127.0.0.1/", { lookup } as typeof strict);
      process.env.ALLOW_PRIVATE_CALLBACKS = "true";
      resetConfig();
      await expect(checkOutboundUrl("http://127.0.0.1/", "callback_url", { lookup })).resolves.toBeInstanceOf(
        URL,
      );
    } finally {
      if (saved === undefined) delete process.env.ALLOW_PRIVATE_CALLBACKS;
      else process.env.ALLOW_PRIVATE_CALLBACKS = saved;
      resetConfig();
    }
  });
});
