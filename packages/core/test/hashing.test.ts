import { describe, expect, it } from "vitest";
import { hashCanonical, sha256Hex } from "../src/hashing";

describe("sha256Hex", () => {
  it("gives the FIPS 180-2 digests for text and bytes", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(sha256Hex("abc"));
  });

  it("hashes text as its UTF-8 bytes", () => {
    const text = "é✓😀";
    expect(sha256Hex(text)).toBe(sha256Hex(new TextEncoder().encode(text)));
    expect(sha256Hex(text)).not.toBe(sha256Hex(new Uint8Array([...text].map((c) => c.charCodeAt(0) & 0xff))));
  });

  it("hashes a value by its canonical JSON", () => {
    expect(hashCanonical({ b: 1, a: "x" })).toBe(sha256Hex('{"a":"x","b":1}'));
  });
});
