import { describe, expect, it } from "vitest";
import { compatibilityHeaders, isRetired } from "../src/compatibility-window";

const window = { deprecatedAt: new Date("2026-07-05T00:00:00Z"), sunset: new Date("2026-10-03T00:00:00Z") };

describe("compatibility window", () => {
  it("is open until the sunset instant and retired from it on", () => {
    expect(isRetired(window, new Date("2026-10-02T23:59:59.999Z"))).toBe(false);
    expect(isRetired(window, new Date("2026-10-03T00:00:00.000Z"))).toBe(true);
    expect(isRetired(window, new Date("2027-01-01T00:00:00Z"))).toBe(true);
  });

  it("writes Deprecation as an RFC 9745 date, Sunset as an HTTP-date and the successor as a link", () => {
    expect(compatibilityHeaders(window, "https://api.example/v1/parties")).toEqual({
      Deprecation: "@1783209600",
      Sunset: "Sat, 03 Oct 2026 00:00:00 GMT",
      Link: '<https://api.example/v1/parties>; rel="successor-version"',
    });
  });

  it("escapes the braces of a reference anchor that names a path template, which a link may not hold", () => {
    expect(compatibilityHeaders(window, "https://api.example/docs#tag/packets/GET/v1/packets/{packet_id}").Link).toBe(
      '<https://api.example/docs#tag/packets/GET/v1/packets/%7Bpacket_id%7D>; rel="successor-version"',
    );
  });
});
