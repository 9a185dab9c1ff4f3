import { ID_PREFIXES, idTimestamp, isIdOf } from "@crs/core";
import { describe, expect, it } from "vitest";
import { newId } from "../src/id-generator";

describe("newId", () => {
  it("gives every id its own random bytes, across many refills of the random pool", () => {
    const ids = Array.from({ length: 5_000 }, () => newId("event", 0));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(isIdOf(ID_PREFIXES.event, id)).toBe(true);
  });

  it("stamps the time it is given", () => {
    expect(idTimestamp(newId("matter", 1767225600000))).toBe(1767225600000);
  });
});
