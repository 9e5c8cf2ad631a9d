import { describe, expect, it } from "vitest";
import { parseConfig } from "../../lib/config.js";
import { clientIp, SOCKET_IP_HEADER } from "../../lib/http/client-ip.js";

const req = (headers: Record<string, string>) => new Request("http://localhost/", { headers });
const spoofed = {
  "x-real-ip": "203.0.113.1",
  "x-forwarded-for": "198.51.100.7, 192.0.2.9",
  [SOCKET_IP_HEADER]: "127.0.0.1",
};

describe("clientIp", () => {
  it("uses the socket address on a bare local host, ignoring forwarded headers", () => {
    expect(clientIp(req(spoofed), parseConfig({}))).toBe("127.0.0.1");
  });
  it("trusts x-real-ip on Vercel", () => {
    expect(clientIp(req(spoofed), parseConfig({ VERCEL: "1" }))).toBe("203.0.113.1");
    expect(clientIp(req(spoofed), parseConfig({ TRUST_PROXY: "vercel" }))).toBe("203.0.113.1");
  });
  it("takes the last x-forwarded-for hop behind a configured proxy", () => {
    expect(clientIp(req(spoofed), parseConfig({ TRUST_PROXY: "x-forwarded-for" }))).toBe("192.0.2.9");
  });
  it("says unknown when nothing identifies the peer", () => {
    expect(clientIp(req({}), parseConfig({}))).toBe("unknown");
  });
});
