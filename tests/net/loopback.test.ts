/**
 * The one loopback test (lib/ip-address.ts `isLoopbackHost`) and the places that ask it: the
 * origin trusted for links (lib/config/request-origin.ts) and the OAuth issuer of a development run
 * (lib/oauth/scopes.ts) agree on every host.
 */
import { describe, expect, it } from "vitest";
import { trustedRequestOrigin } from "../../lib/config/request-origin.js";
import { isLoopbackHost } from "../../lib/ip-address.js";

const LOOPBACK = [
  "localhost",
  "LOCALHOST",
  "app.localhost",
  "127.0.0.1",
  "127.1.2.3",
  "::1",
  "[::1]",
  "::ffff:127.0.0.1",
];
const NOT_LOOPBACK = [
  "example.com",
  "localhost.example.com",
  "127.0.0.1.nip.io",
  "10.0.0.1",
  "192.168.1.2",
  "::",
  "0.0.0.0",
  "[2001:db8::1]",
  "::ffff:10.0.0.1",
  "",
];

describe("isLoopbackHost", () => {
  it.each(LOOPBACK)("%s is this machine", (host) => expect(isLoopbackHost(host)).toBe(true));
  it.each(NOT_LOOPBACK)("%s is not", (host) => expect(isLoopbackHost(host)).toBe(false));
});

describe("trustedRequestOrigin follows it", () => {
  const config = { PUBLIC_BASE_URL: undefined, MCP_ALLOWED_HOSTS: "ops.example.org" };
  const origin = (url: string) => trustedRequestOrigin(new Request(url), config, false);

  it("trusts a loopback host at any port, and a listed host", () => {
    expect(origin("http://127.0.0.2:3000/api/x")).toBe("http://127.0.0.2:3000");
    expect(origin("http://[::1]:8080/")).toBe("http://[::1]:8080");
    expect(origin("http://app.localhost:3000/")).toBe("http://app.localhost:3000");
    expect(origin("https://ops.example.org/")).toBe("https://ops.example.org");
  });

  it("ignores any other host, and everything under PUBLIC_BASE_URL or the production profile", () => {
    expect(origin("http://evil.example.com/")).toBeUndefined();
    expect(origin("http://127.0.0.1.nip.io/")).toBeUndefined();
    expect(trustedRequestOrigin(new Request("http://127.0.0.1:3000/"), config, true)).toBeUndefined();
    expect(
      trustedRequestOrigin(
        new Request("http://127.0.0.1:3000/"),
        { PUBLIC_BASE_URL: "https://x.example" },
        false,
      ),
    ).toBeUndefined();
  });
});
