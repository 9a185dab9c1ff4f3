import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalize, canonicalizeWithMembers } from "../src/canonical-json";

/** The IEEE 754 double with the given 64-bit pattern. */
function doubleFromBits(bits: bigint): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, bits);
  return view.getFloat64(0);
}

describe("canonicalize: RFC 8785 examples", () => {
  it("reproduces the RFC 8785 §3.2.2 example output byte for byte", () => {
    const input = String.raw`{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`;
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    const output = canonicalize(JSON.parse(input));
    expect(output).toBe(expected);
  });

  it("sorts the RFC 8785 §3.2.3 keys by UTF-16 code units, not by code points", () => {
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    const output = canonicalize(input);
    expect(output).toBe(
      "{" +
        '"\\r":"Carriage Return",' +
        '"1":"One",' +
        '"\u0080":"Control",' +
        '"\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign",' +
        '"\ud83d\ude00":"Emoji: Grinning Face",' +
        '"\ufb33":"Hebrew Letter Dalet With Dagesh"' +
        "}",
    );
  });
});

describe("canonicalize: RFC 8785 Appendix B number serialization", () => {
  const vectors: ReadonlyArray<readonly [bigint, string]> = [
    [0x0000000000000000n, "0"],
    [0x8000000000000000n, "0"],
    [0x0000000000000001n, "5e-324"],
    [0x8000000000000001n, "-5e-324"],
    [0x7fefffffffffffffn, "1.7976931348623157e+308"],
    [0xffefffffffffffffn, "-1.7976931348623157e+308"],
    [0x4340000000000000n, "9007199254740992"],
    [0xc340000000000000n, "-9007199254740992"],
    [0x4430000000000000n, "295147905179352830000"],
    [0x44b52d02c7e14af5n, "9.999999999999997e+22"],
    [0x44b52d02c7e14af6n, "1e+23"],
    [0x44b52d02c7e14af7n, "1.0000000000000001e+23"],
    [0x444b1ae4d6e2ef4en, "999999999999999700000"],
    [0x444b1ae4d6e2ef4fn, "999999999999999900000"],
    [0x444b1ae4d6e2ef50n, "1e+21"],
    [0x3eb0c6f7a0b5ed8cn, "9.999999999999997e-7"],
    [0x3eb0c6f7a0b5ed8dn, "0.000001"],
    [0x41b3de4355555553n, "333333333.3333332"],
    [0x41b3de4355555554n, "333333333.33333325"],
    [0x41b3de4355555555n, "333333333.3333333"],
    [0x41b3de4355555556n, "333333333.3333334"],
    [0x41b3de4355555557n, "333333333.33333343"],
    [0xbecbf647612f3696n, "-0.0000033333333333333333"],
    [0x43143ff3c1cb0959n, "1424953923781206.2"],
  ];

  for (const [bits, expected] of vectors) {
    it(`serializes IEEE 754 0x${bits.toString(16).padStart(16, "0")} as ${expected}`, () => {
      expect(canonicalize(doubleFromBits(bits))).toBe(expected);
    });
  }

  it("serializes number literals in ECMAScript shortest form", () => {
    const cases: ReadonlyArray<readonly [number, string]> = [
      [0, "0"],
      [-0, "0"],
      [5e-324, "5e-324"],
      [1.7976931348623157e308, "1.7976931348623157e+308"],
      [9007199254740992, "9007199254740992"],
      [1e21, "1e+21"],
      [1e-7, "1e-7"],
      [0.000001, "0.000001"],
      [295147905179352830000, "295147905179352830000"],
      [4.5, "4.5"],
      [-12.25, "-12.25"],
      [100, "100"],
    ];
    for (const [value, expected] of cases) expect(canonicalize(value)).toBe(expected);
  });

  it("rejects NaN, Infinity and -Infinity (Appendix B error cases) wherever they appear", () => {
    expect(() => canonicalize(doubleFromBits(0x7fffffffffffffffn))).toThrow(TypeError);
    expect(() => canonicalize(doubleFromBits(0x7ff0000000000000n))).toThrow(TypeError);
    expect(() => canonicalize(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalize(Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => canonicalize(Number.NEGATIVE_INFINITY)).toThrow(TypeError);
    expect(() => canonicalize({ amount: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalize([1, [Number.POSITIVE_INFINITY]])).toThrow(TypeError);
  });
});

describe("canonicalize: structure", () => {
  it("emits no whitespace and sorts keys of nested objects recursively", () => {
    const value = { b: { z: 1, a: [3, { y: true, x: null }] }, a: "first" };
    expect(canonicalize(value)).toBe('{"a":"first","b":{"a":[3,{"x":null,"y":true}],"z":1}}');
  });

  it("keeps array element order", () => {
    expect(canonicalize([3, 1, 2, "b", "a"])).toBe('[3,1,2,"b","a"]');
  });

  it("produces the same output whatever the key insertion order", () => {
    expect(canonicalize({ a: 1, b: 2, c: { d: 3, e: 4 } })).toBe(canonicalize({ c: { e: 4, d: 3 }, b: 2, a: 1 }));
  });

  it("sorts integer-like keys as strings, not numerically", () => {
    expect(canonicalize({ 10: "ten", 9: "nine", 1: "one", a: "a" })).toBe('{"1":"one","10":"ten","9":"nine","a":"a"}');
  });

  it("drops object members whose value is undefined, at every depth", () => {
    expect(canonicalize({ a: undefined, b: 1, c: { d: undefined, e: 2 } })).toBe('{"b":1,"c":{"e":2}}');
    expect(canonicalize({ only: undefined })).toBe("{}");
  });

  it("writes undefined array elements as null, as JSON.stringify does", () => {
    expect(canonicalize([1, undefined, 2])).toBe("[1,null,2]");
  });

  it("serializes empty containers and literals", () => {
    expect(canonicalize({})).toBe("{}");
    expect(canonicalize([])).toBe("[]");
    expect(canonicalize(null)).toBe("null");
    expect(canonicalize(true)).toBe("true");
    expect(canonicalize(false)).toBe("false");
  });

  it("serializes a Date as its ISO 8601 string", () => {
    expect(canonicalize({ at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)) })).toBe('{"at":"2026-01-02T03:04:05.006Z"}');
  });

  it("rejects values JSON cannot represent", () => {
    expect(() => canonicalize(10n)).toThrow(TypeError);
    expect(() => canonicalize(() => 1)).toThrow(TypeError);
    expect(() => canonicalize(Symbol("s"))).toThrow(TypeError);
    expect(() => canonicalize(undefined)).toThrow(TypeError);
  });

  it("is idempotent: canonical text re-parsed canonicalizes to itself", () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "grapheme" }), (value) => {
        const once = canonicalize(value);
        expect(canonicalize(JSON.parse(once))).toBe(once);
      }),
    );
  });
});

describe("canonicalize: strings", () => {
  it("escapes only quote, backslash and control characters, using the short forms where they exist", () => {
    expect(canonicalize('"\\')).toBe(String.raw`"\"\\"`);
    expect(canonicalize("\b\t\n\f\r")).toBe(String.raw`"\b\t\n\f\r"`);
    expect(canonicalize("\u0000\u0001\u000b\u001f")).toBe(String.raw`"\u0000\u0001\u000b\u001f"`);
    // Lowercase hex in \u escapes, DEL and non-ASCII left as is, "/" not escaped.
    expect(canonicalize("\u001e\u007f/\u00e9\u20ac")).toBe('"\\u001e\u007f/\u00e9\u20ac"');
  });

  it("keeps a well-formed surrogate pair as the literal character", () => {
    expect(canonicalize("\ud83d\ude00")).toBe('"\ud83d\ude00"');
  });

  it("rejects lone surrogates in values and in keys", () => {
    expect(() => canonicalize("\ud83d")).toThrow(TypeError);
    expect(() => canonicalize("a\ud83d")).toThrow(TypeError);
    expect(() => canonicalize("\ud83da")).toThrow(TypeError);
    expect(() => canonicalize("\ude00")).toThrow(TypeError);
    expect(() => canonicalize("\ude00\ud83d")).toThrow(TypeError);
    expect(() => canonicalize(["ok", "\udfff"])).toThrow(TypeError);
    expect(() => canonicalize({ "\ud800": 1 })).toThrow(TypeError);
    expect(() => canonicalize({ nested: { value: "x\udbff" } })).toThrow(TypeError);
  });
});

describe("canonicalizeWithMembers", () => {
  const record = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 });

  it("gives the text canonicalize gives when the named members are passed as their canonical text", () => {
    fc.assert(
      fc.property(record, fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1, maxKeys: 3 }), (rest, given) => {
        const whole = { ...rest, ...given };
        const texts = Object.fromEntries(Object.entries(given).map(([key, value]) => [key, canonicalize(value)]));
        // The record may hold the same keys with other values: the given text wins, as in `whole`.
        expect(canonicalizeWithMembers(rest, texts)).toBe(canonicalize(whole));
      }),
    );
  });

  it("places a given member among the others by UTF-16 order, and reads no inherited key", () => {
    expect(canonicalizeWithMembers({ b: 2, "\u20ac": 3, toString: 4 }, { data: "[1]" })).toBe(
      '{"b":2,"data":[1],"toString":4,"\u20ac":3}',
    );
    expect(canonicalizeWithMembers({ constructor: 1 }, {})).toBe('{"constructor":1}');
  });
});
