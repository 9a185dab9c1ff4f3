import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatId, ID_PREFIXES, type IdPrefix, idTimestamp, isIdOf, RANDOM_BYTES_PER_ID } from "../src/ids";

const ZERO_RANDOM = new Uint8Array(RANDOM_BYTES_PER_ID);
const MAX_TIME = 2 ** 48 - 1;
const randomBytes = fc.uint8Array({ minLength: RANDOM_BYTES_PER_ID, maxLength: RANDOM_BYTES_PER_ID });
const timeMs = fc.integer({ min: 0, max: MAX_TIME });
const prefixes = Object.values(ID_PREFIXES) as IdPrefix[];
const anyPrefix = fc.constantFrom(...prefixes);

/** Byte-wise comparison of two equal-length byte arrays: -1, 0 or 1. */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

describe("formatId", () => {
  it("produces <prefix>_ followed by 26 lowercase Crockford base32 characters", () => {
    fc.assert(
      fc.property(anyPrefix, timeMs, randomBytes, (prefix, time, random) => {
        const id = formatId(prefix, time, random);
        expect(id.startsWith(`${prefix}_`)).toBe(true);
        expect(id.slice(prefix.length + 1)).toMatch(/^[0-9abcdefghjkmnpqrstvwxyz]{26}$/);
      }),
    );
  });

  it("encodes the ULID spec example time 1469918176385 as 01aryz6s41", () => {
    expect(formatId("evt", 1469918176385, ZERO_RANDOM)).toBe("evt_01aryz6s410000000000000000");
  });

  it("encodes the extremes of time and randomness", () => {
    expect(formatId("matter", 0, ZERO_RANDOM)).toBe(`matter_${"0".repeat(26)}`);
    expect(formatId("matter", MAX_TIME, new Uint8Array(RANDOM_BYTES_PER_ID).fill(0xff))).toBe(
      `matter_7zzzzzzzzz${"z".repeat(16)}`,
    );
  });

  it("encodes the random bytes big-endian in the last 16 characters", () => {
    const last = new Uint8Array(RANDOM_BYTES_PER_ID);
    last[RANDOM_BYTES_PER_ID - 1] = 1;
    expect(formatId("party", 0, last)).toBe(`party_${"0".repeat(25)}1`);
    const first = new Uint8Array(RANDOM_BYTES_PER_ID);
    first[0] = 0x80;
    expect(formatId("party", 0, first)).toBe(`party_${"0".repeat(10)}g${"0".repeat(15)}`);
  });

  it("encodes any 80 random bits as one big-endian number in base 32", () => {
    fc.assert(
      fc.property(randomBytes, (random) => {
        let bits = 0n;
        for (const byte of random) bits = (bits << 8n) | BigInt(byte);
        const expected = [...bits.toString(32).padStart(16, "0")]
          .map((digit) => "0123456789abcdefghjkmnpqrstvwxyz"[Number.parseInt(digit, 32)])
          .join("");
        expect(formatId("evt", 0, random).slice(-16)).toBe(expected);
      }),
    );
  });

  it("rejects a time that is negative, fractional or beyond 48 bits", () => {
    expect(() => formatId("evt", -1, ZERO_RANDOM)).toThrow(RangeError);
    expect(() => formatId("evt", 1.5, ZERO_RANDOM)).toThrow(RangeError);
    expect(() => formatId("evt", 2 ** 48, ZERO_RANDOM)).toThrow(RangeError);
    expect(() => formatId("evt", Number.NaN, ZERO_RANDOM)).toThrow(RangeError);
  });

  it("rejects random input that is not exactly 10 bytes", () => {
    expect(() => formatId("evt", 0, new Uint8Array(RANDOM_BYTES_PER_ID - 1))).toThrow(RangeError);
    expect(() => formatId("evt", 0, new Uint8Array(RANDOM_BYTES_PER_ID + 1))).toThrow(RangeError);
  });
});

describe("ID_PREFIXES", () => {
  it("has distinct prefixes without underscores, so the last '_' always separates prefix from body", () => {
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const prefix of prefixes) expect(prefix).toMatch(/^[a-z]+$/);
  });
});

describe("isIdOf", () => {
  const matterId = formatId("matter", 1767225600000, Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));

  it("accepts every id formatted with its own prefix", () => {
    fc.assert(
      fc.property(anyPrefix, timeMs, randomBytes, (prefix, time, random) => {
        expect(isIdOf(prefix, formatId(prefix, time, random))).toBe(true);
      }),
    );
  });

  it("rejects an id of any other prefix", () => {
    fc.assert(
      fc.property(anyPrefix, anyPrefix, timeMs, randomBytes, (own, other, time, random) => {
        fc.pre(own !== other);
        expect(isIdOf(other, formatId(own, time, random))).toBe(false);
      }),
    );
  });

  it("does not accept a matter id as a party id", () => {
    expect(isIdOf("matter", matterId)).toBe(true);
    expect(isIdOf("party", matterId)).toBe(false);
    expect(isIdOf("party", matterId.replace(/^matter_/, "party"))).toBe(false);
  });

  it("rejects a matter_ prefix followed by a malformed body", () => {
    const body = matterId.slice("matter_".length);
    const garbage = [
      "matter_",
      "matter_garbage",
      `matter_${body.slice(1)}`,
      `matter_${body}0`,
      `matter_${body.toUpperCase()}`,
      `matter_${body.slice(0, 25)}i`,
      `matter_${body.slice(0, 25)}l`,
      `matter_${body.slice(0, 25)}o`,
      `matter_${body.slice(0, 25)}u`,
      `matter_${body.slice(0, 25)}-`,
      `matter__${body}`,
      `xmatter_${body}`,
      `Matter_${body}`,
      ` matter_${body}`,
      `matter_${body} `,
      `matter_${body}\n`,
      `matter${body}`,
      body,
      "",
    ];
    for (const candidate of garbage) expect(isIdOf("matter", candidate), candidate).toBe(false);
  });
});

describe("id ordering", () => {
  it("sorts ids of one prefix by time: t1 < t2 implies id(t1) < id(t2) whatever the random bytes", () => {
    fc.assert(
      fc.property(
        anyPrefix,
        fc.integer({ min: 0, max: MAX_TIME - 1 }),
        fc.integer({ min: 1, max: MAX_TIME }),
        randomBytes,
        randomBytes,
        (prefix, t1, delta, r1, r2) => {
          const t2 = Math.min(MAX_TIME, t1 + delta);
          expect(formatId(prefix, t1, r1) < formatId(prefix, t2, r2)).toBe(true);
        },
      ),
    );
  });

  it("sorts ids of adjacent milliseconds by time even with maximal versus minimal randomness", () => {
    const high = new Uint8Array(RANDOM_BYTES_PER_ID).fill(0xff);
    expect(formatId("evt", 1000, high) < formatId("evt", 1001, ZERO_RANDOM)).toBe(true);
  });

  it("sorts ids of the same millisecond by their random bytes", () => {
    fc.assert(
      fc.property(timeMs, randomBytes, randomBytes, (time, r1, r2) => {
        expect(compareStrings(formatId("evt", time, r1), formatId("evt", time, r2))).toBe(compareBytes(r1, r2));
      }),
    );
  });
});

describe("idTimestamp", () => {
  it("round-trips the time encoded by formatId", () => {
    fc.assert(
      fc.property(anyPrefix, timeMs, randomBytes, (prefix, time, random) => {
        expect(idTimestamp(formatId(prefix, time, random))).toBe(time);
      }),
    );
  });

  it("reads the time of known ids", () => {
    expect(idTimestamp("evt_01aryz6s410000000000000000")).toBe(1469918176385);
    expect(idTimestamp(`org_7zzzzzzzzz${"z".repeat(16)}`)).toBe(MAX_TIME);
    expect(idTimestamp(`org_${"0".repeat(26)}`)).toBe(0);
  });
});
