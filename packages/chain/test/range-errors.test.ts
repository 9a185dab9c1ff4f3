import { describe, expect, it } from "vitest";
import { isRangeLimitError, suggestedRange } from "../src/index";

describe("range-limit errors", () => {
  it("recognises the limit messages of common nodes and hosted providers", () => {
    for (const message of [
      "query exceeds max block range 1000",
      "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range",
      "query returned more than 10000 results. Try with this block range [0x1, 0x2]",
      "eth_getLogs is limited to a 10,000 range",
      "block range too large",
      "exceed maximum block range: 5000",
    ]) {
      expect(isRangeLimitError(new Error(message))).toBe(true);
    }
    expect(isRangeLimitError(new Error("execution reverted"))).toBe(false);
    expect(isRangeLimitError(new Error("connection refused"))).toBe(false);
  });

  it("reads the range a provider suggests, in its several spellings", () => {
    expect(suggestedRange(new Error("retry with the range 0x10-0x1f"))).toEqual([16n, 31n]);
    expect(suggestedRange(new Error("Try with this block range [0x5, 0x7]."))).toEqual([5n, 7n]);
    expect(suggestedRange(new Error("block range too large"))).toBeNull();
  });
});
