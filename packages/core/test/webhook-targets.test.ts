import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AddressClass,
  checkResolvedAddresses,
  checkWebhookTarget,
  classifyAddress,
  isPublicAddress,
  WEBHOOK_TARGET_POLICIES,
} from "../src/webhooks";

// Each row: an address, the class it must get, and why it is in the table.
const ADDRESSES: readonly [string, AddressClass][] = [
  // IPv4 private networks
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.254", "private"],
  ["192.168.1.1", "private"],
  // just outside them
  ["9.255.255.255", "public"],
  ["11.0.0.0", "public"],
  ["172.15.255.255", "public"],
  ["172.32.0.0", "public"],
  ["192.167.255.255", "public"],
  ["192.169.0.0", "public"],
  // loopback, link-local, metadata, CGNAT
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.0.1", "link_local"],
  ["169.254.169.254", "cloud_metadata"],
  ["100.100.100.200", "cloud_metadata"],
  ["192.0.0.192", "cloud_metadata"],
  ["100.64.0.1", "carrier_grade_nat"],
  ["100.127.255.255", "carrier_grade_nat"],
  ["100.63.255.255", "public"],
  ["100.128.0.0", "public"],
  // unspecified, multicast, broadcast, reserved
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved"],
  ["192.0.0.8", "reserved"],
  ["192.88.99.1", "reserved"],
  // documentation and benchmarking
  ["192.0.2.10", "documentation"],
  ["198.51.100.10", "documentation"],
  ["203.0.113.10", "documentation"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  // ordinary public addresses
  ["8.8.8.8", "public"],
  ["1.1.1.1", "public"],
  ["93.184.215.14", "public"],
  // IPv6 basics
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["fe80::1", "link_local"],
  ["febf:ffff::1", "link_local"],
  ["fc00::1", "unique_local"],
  ["fd12:3456:789a::1", "unique_local"],
  ["fd00:ec2::254", "cloud_metadata"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001:2::1", "benchmarking"],
  ["2001::1", "reserved"], // Teredo
  ["100::1", "reserved"], // discard-only
  ["64:ff9b:1::1", "reserved"], // local-use NAT64
  ["fec0::1", "reserved"], // former site-local
  ["4000::1", "reserved"], // outside global unicast
  ["2606:4700:4700::1111", "public"],
  ["2a00:1450:4001:80b::200e", "public"],
  // IPv6 forms that carry an IPv4 address
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:169.254.169.254", "cloud_metadata"],
  ["::ffff:8.8.8.8", "public"],
  ["::ffff:0:a00:1", "private"], // IPv4-translated
  ["::127.0.0.1", "loopback"], // IPv4-compatible
  ["::7f00:1", "loopback"],
  ["::8.8.8.8", "reserved"], // IPv4-compatible is never routed, even with a public address inside
  ["::808:808", "reserved"],
  ["64:ff9b::10.0.0.1", "private"], // NAT64
  ["64:ff9b::a9fe:a9fe", "cloud_metadata"],
  ["64:ff9b::8.8.8.8", "public"],
  ["2002:7f00:1::", "loopback"], // 6to4
  ["2002:c0a8:101::1", "private"],
  ["2002:808:808::1", "public"],
  // bracketed and scoped IPv6
  ["[::1]", "loopback"],
  ["[::ffff:127.0.0.1]", "loopback"],
  ["fe80::1%eth0", "link_local"],
  // IPv4 spellings the system resolver accepts
  ["0x7f.1", "loopback"],
  ["0x7f000001", "loopback"],
  ["2130706433", "loopback"],
  ["0177.0.0.1", "loopback"],
  ["127.1", "loopback"],
  ["017700000001", "loopback"],
  ["0xa9.0xfe.0xa9.0xfe", "cloud_metadata"],
  ["0", "unspecified"],
];

describe("classifyAddress / isPublicAddress", () => {
  it.each(ADDRESSES)("classifies %s as %s", (ip, expected) => {
    expect(classifyAddress(ip)?.class).toBe(expected);
    expect(isPublicAddress(ip)).toBe(expected === "public");
  });

  it("names the IPv4 address an IPv6 form carries", () => {
    expect(classifyAddress("::ffff:7f00:1")).toEqual({
      address: "::ffff:7f00:1",
      family: 6,
      class: "loopback",
      embeddedIpv4: "127.0.0.1",
    });
    expect(classifyAddress("2002:c0a8:101::1")?.embeddedIpv4).toBe("192.168.1.1");
    // Not the mapped address ::ffff:808:808: the dotted spelling of an IPv4-compatible address stays compatible.
    expect(classifyAddress("::8.8.8.8")).toMatchObject({ address: "::808:808", embeddedIpv4: "8.8.8.8" });
  });

  it("returns null for text that is not an address, and never calls it public", () => {
    for (const text of [
      "",
      "localhost",
      "example.com",
      "1.2.3.4.5",
      "256.0.0.1",
      "08.0.0.1",
      " 8.8.8.8",
      "::g",
      "[8.8.8.8",
    ]) {
      expect(classifyAddress(text)).toBeNull();
      expect(isPublicAddress(text)).toBe(false);
    }
  });

  it("judges every IPv6 embedding of an IPv4 address no more kindly than the address itself", () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
        const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
        const inner = classifyAddress(v4)!.class;
        for (const form of [`::ffff:${v4}`, `::ffff:0:${v4}`, `64:ff9b::${v4}`, `2002:${hex(a, b)}:${hex(c, d)}::1`]) {
          expect(classifyAddress(form)!.class).toBe(inner);
        }
        if (inner !== "public") expect(isPublicAddress(`::${v4}`)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses every address of the private, loopback and link-local IPv4 blocks", () => {
    const inBlock = (first: number, second: fc.Arbitrary<number>) =>
      fc.tuple(second, fc.nat(255), fc.nat(255)).map(([b, c, d]) => `${first}.${b}.${c}.${d}`);
    fc.assert(
      fc.property(
        fc.oneof(
          inBlock(10, fc.nat(255)),
          inBlock(172, fc.integer({ min: 16, max: 31 })),
          inBlock(192, fc.constant(168)),
          inBlock(127, fc.nat(255)),
          inBlock(169, fc.constant(254)),
          inBlock(100, fc.integer({ min: 64, max: 127 })),
        ),
        (ip) => {
          expect(isPublicAddress(ip)).toBe(false);
        },
      ),
    );
  });
});

const live = (url: string) => checkWebhookTarget(url, "live");
const sandbox = (url: string) => checkWebhookTarget(url, "sandbox");

describe("checkWebhookTarget", () => {
  it("accepts an https URL with a public host name in live and returns its parts", () => {
    expect(live("https://Hooks.Example.com:8443/in/svc?tenant=7#frag")).toEqual({
      ok: true,
      url: "https://hooks.example.com:8443/in/svc?tenant=7#frag",
      protocol: "https:",
      hostname: "hooks.example.com",
      host: "hooks.example.com:8443",
      port: 8443,
      path: "/in/svc?tenant=7",
      ipAddress: null,
    });
  });

  it("accepts http in the sandbox only", () => {
    expect(sandbox("http://hooks.example.com/in")).toMatchObject({ ok: true, port: 80 });
    expect(sandbox("https://hooks.example.com/in")).toMatchObject({ ok: true, port: 443 });
    expect(live("http://hooks.example.com/in")).toMatchObject({ ok: false, reason: "protocol_not_allowed" });
  });

  it("refuses other schemes and text that is not an absolute URL", () => {
    for (const url of [
      "ftp://hooks.example.com/",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "ws://hooks.example.com/",
    ]) {
      expect(sandbox(url)).toMatchObject({ ok: false, reason: "protocol_not_allowed" });
    }
    for (const url of ["", "hooks.example.com/in", "/in", "https://", "http://[::1/"]) {
      expect(sandbox(url)).toMatchObject({ ok: false, reason: "invalid_url" });
    }
  });

  it("refuses a user name or password in the URL in both environments", () => {
    for (const url of [
      "https://user:pass@hooks.example.com/",
      "https://user@hooks.example.com/",
      "https://:pass@hooks.example.com/",
    ]) {
      expect(live(url)).toMatchObject({ ok: false, reason: "credentials_in_url" });
      expect(sandbox(url)).toMatchObject({ ok: false, reason: "credentials_in_url" });
    }
  });

  it("refuses IP literal hosts outside public space in live, naming the address and its class", () => {
    expect(live("https://10.0.0.5/hook")).toEqual({
      ok: false,
      reason: "address_not_allowed",
      message: "webhook target address 10.0.0.5 is private",
      address: "10.0.0.5",
      addressClass: "private",
    });
    expect(live("https://[fe80::1]/")).toMatchObject({ reason: "address_not_allowed", addressClass: "link_local" });
    expect(live("https://[::ffff:169.254.169.254]/")).toMatchObject({
      reason: "address_not_allowed",
      addressClass: "cloud_metadata",
    });
    expect(live("https://8.8.8.8/hook")).toMatchObject({ ok: true, ipAddress: "8.8.8.8", hostname: "8.8.8.8" });
    expect(live("https://[2606:4700:4700::1111]/")).toMatchObject({
      ok: true,
      ipAddress: "2606:4700:4700::1111",
      hostname: "2606:4700:4700::1111",
      host: "[2606:4700:4700::1111]",
    });
  });

  it("judges odd IPv4 spellings in a URL by the address URL parsing turns them into", () => {
    for (const host of ["0x7f.1", "2130706433", "0177.0.0.1", "127.1", "%31%32%37.0.0.1", "127.0.0.1.", "0x7f000001"]) {
      expect(live(`https://${host}/hook`)).toMatchObject({
        ok: false,
        reason: "address_not_allowed",
        address: "127.0.0.1",
        addressClass: "loopback",
      });
      expect(sandbox(`http://${host}/hook`)).toMatchObject({
        ok: true,
        url: "http://127.0.0.1/hook",
        ipAddress: "127.0.0.1",
      });
    }
    expect(live("https://[::ffff:127.0.0.1]/")).toMatchObject({
      reason: "address_not_allowed",
      address: "::ffff:7f00:1",
    });
    expect(live("https://0/")).toMatchObject({ reason: "address_not_allowed", addressClass: "unspecified" });
    expect(live("https://0xa9fea9fe/")).toMatchObject({
      reason: "address_not_allowed",
      addressClass: "cloud_metadata",
    });
  });

  it("lets the sandbox reach loopback and private networks but never metadata, link-local or non-unicast", () => {
    for (const url of ["http://127.0.0.1:4000/", "http://[::1]:4000/", "http://192.168.1.20/", "http://[fd00::5]/"]) {
      expect(sandbox(url)).toMatchObject({ ok: true });
    }
    const refused: [string, AddressClass][] = [
      ["http://169.254.169.254/latest/meta-data/", "cloud_metadata"],
      ["http://[fd00:ec2::254]/", "cloud_metadata"],
      ["http://100.100.100.200/", "cloud_metadata"],
      ["http://169.254.10.1/", "link_local"],
      ["http://0.0.0.0:4000/", "unspecified"],
      ["http://[::]:4000/", "unspecified"],
      ["http://224.0.0.1/", "multicast"],
      ["http://255.255.255.255/", "broadcast"],
    ];
    for (const [url, addressClass] of refused) {
      expect(sandbox(url)).toMatchObject({ ok: false, reason: "address_not_allowed", addressClass });
    }
  });

  it("refuses names that can only be local in live", () => {
    for (const host of [
      "localhost",
      "LOCALHOST.",
      "api.localhost",
      "printer.local",
      "db.internal",
      "nas.home.arpa",
      "intranet",
    ]) {
      expect(live(`https://${host}/hook`)).toMatchObject({ ok: false, reason: "local_hostname" });
    }
    expect(sandbox("http://localhost:3000/hook")).toMatchObject({ ok: true, hostname: "localhost", ipAddress: null });
  });

  it("accepts an explicit policy in place of the environment's", () => {
    const strictSandbox = { ...WEBHOOK_TARGET_POLICIES.sandbox, addressClasses: ["public" as const] };
    expect(checkWebhookTarget("http://127.0.0.1/", "sandbox", strictSandbox)).toMatchObject({
      ok: false,
      reason: "address_not_allowed",
    });
  });
});

describe("checkResolvedAddresses", () => {
  const livePolicy = WEBHOOK_TARGET_POLICIES.live;

  it("passes an answer made only of public addresses, in canonical form", () => {
    expect(checkResolvedAddresses(["93.184.215.14", "2606:2800:21F:CB07:6820:80DA:AF6B:8B2C"], livePolicy)).toEqual({
      ok: true,
      addresses: [
        { address: "93.184.215.14", family: 4 },
        { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
      ],
    });
  });

  it("refuses the whole answer when any one address is not allowed", () => {
    expect(checkResolvedAddresses(["93.184.215.14", "10.0.0.7"], livePolicy)).toMatchObject({
      ok: false,
      reason: "address_not_allowed",
      address: "10.0.0.7",
    });
    expect(checkResolvedAddresses(["::ffff:192.168.0.1", "8.8.8.8"], livePolicy)).toMatchObject({
      ok: false,
      addressClass: "private",
    });
  });

  it("refuses an empty answer and text that is not an address", () => {
    expect(checkResolvedAddresses([], livePolicy)).toMatchObject({ ok: false, reason: "no_addresses" });
    expect(checkResolvedAddresses(["not-an-ip"], WEBHOOK_TARGET_POLICIES.sandbox)).toMatchObject({
      ok: false,
      reason: "address_not_allowed",
    });
  });
});
