import { describe, expect, it } from "vitest";
import { forbiddenReason, isForbiddenAddress } from "../../lib/net/ip-policy.js";

const allowed: string[] = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "172.15.255.255", // just below 172.16/12
  "172.32.0.1", // just above 172.16/12
  "100.63.255.255", // just below CGNAT
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "::ffff:8.8.8.8", // mapped public
  "64:ff9b::808:808", // NAT64 of 8.8.8.8
  "2002:808:808::1", // 6to4 of 8.8.8.8
];

const forbidden: [string, string][] = [
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "linkLocal"], // cloud metadata
  ["169.254.0.1", "linkLocal"],
  ["100.64.0.1", "carrierGradeNat"],
  ["100.100.100.200", "carrierGradeNat"], // Alibaba metadata
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["192.0.2.1", "reserved"], // TEST-NET-1
  ["198.51.100.1", "reserved"], // TEST-NET-2
  ["203.0.113.1", "reserved"], // TEST-NET-3
  ["198.18.0.1", "reserved"], // benchmarking
  ["240.0.0.1", "reserved"],
  ["192.0.0.1", "reserved"],
  ["::1", "loopback"],
  ["::", "unspecified"],
  ["fe80::1", "linkLocal"],
  ["fe80::1%eth0", "linkLocal"],
  ["fc00::1", "uniqueLocal"],
  ["fd12:3456:789a::1", "uniqueLocal"],
  ["fd00:ec2::254", "metadata"], // AWS IMDS over IPv6
  ["ff02::1", "multicast"],
  ["fec0::1", "deprecatedSiteLocal"],
  ["2001:db8::1", "reserved"], // documentation
  ["3fff::1", "reserved"], // documentation (RFC 9637)
  ["100::1", "discard"],
  ["::ffff:10.0.0.1", "ipv4Mapped:private"],
  ["::ffff:127.0.0.1", "ipv4Mapped:loopback"],
  ["::ffff:7f00:1", "ipv4Mapped:loopback"],
  ["::ffff:169.254.169.254", "ipv4Mapped:linkLocal"],
  ["::7f00:1", "notGlobalUnicast"], // IPv4-compatible ::127.0.0.1 (deprecated)
  ["4000::1", "notGlobalUnicast"], // unassigned
  ["64:ff9b::7f00:1", "nat64:loopback"],
  ["64:ff9b::a00:1", "nat64:private"],
  ["64:ff9b:1::808:808", "nat64LocalUse"],
  ["2002:7f00:1::1", "6to4:loopback"],
  ["2002:c0a8:101::1", "6to4:private"],
  // Teredo, server 65.54.227.120, client 127.0.0.1 obfuscated (~0x7f000001 = 0x80fffffe)
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "teredoClient:loopback"],
  // Teredo, server 10.0.0.1
  ["2001:0:a00:1:8000:63bf:3fff:fdd2", "teredoServer:private"],
  ["not-an-ip", "invalid"],
  ["", "invalid"],
];

describe("isForbiddenAddress", () => {
  it.each(allowed)("allows public %s", (ip) => {
    expect(forbiddenReason(ip)).toBeUndefined();
    expect(isForbiddenAddress(ip)).toBe(false);
  });

  it.each(forbidden)("refuses %s (%s)", (ip, reason) => {
    expect(forbiddenReason(ip)).toBe(reason);
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it("refuses ::127.0.0.1 (ipaddr.js reads the dotted IPv4-compatible form as mapped)", () => {
    expect(isForbiddenAddress("::127.0.0.1")).toBe(true);
    expect(isForbiddenAddress("::10.0.0.1")).toBe(true);
  });

  it("teredo with public server and client is allowed", () => {
    // server 65.54.227.120, client 8.8.8.8 (obfuscated: ~0x08080808 = 0xf7f7f7f7)
    expect(isForbiddenAddress("2001:0:4136:e378:8000:63bf:f7f7:f7f7")).toBe(false);
  });

  describe("allowPrivate", () => {
    const opts = { allowPrivate: true };
    it.each(["127.0.0.1", "::1", "10.1.2.3", "192.168.0.10", "fd12::1", "::ffff:127.0.0.1"])(
      "allows %s",
      (ip) => {
        expect(isForbiddenAddress(ip, opts)).toBe(false);
      },
    );
    it.each([
      "169.254.169.254",
      "fd00:ec2::254",
      "fe80::1",
      "0.0.0.0",
      "::",
      "100.64.0.1",
      "224.0.0.1",
      "192.0.2.1",
    ])("still refuses %s", (ip) => {
      expect(isForbiddenAddress(ip, opts)).toBe(true);
    });
  });
});
