import { describe, expect, it } from "vitest";
import { findPartyNameMatch, normalizePartyName, partyNameMatches } from "../src/names";

const acme = { name: "Acme Holdings Inc.", legal_name: "ACME HOLDINGS, INC.", aliases: ["Acme", "Acme Digital"] };

describe("partyNameMatches", () => {
  it("ignores case against the name, the legal name and each alias", () => {
    expect(findPartyNameMatch("acme holdings inc.", acme)).toEqual({ field: "name", value: "Acme Holdings Inc." });
    expect(findPartyNameMatch("Acme Holdings, Inc.", acme)).toEqual({
      field: "legal_name",
      value: "ACME HOLDINGS, INC.",
    });
    expect(findPartyNameMatch("ACME DIGITAL", acme)).toEqual({ field: "alias", value: "Acme Digital" });
  });

  it("ignores surrounding whitespace and differences in inner runs of whitespace", () => {
    expect(partyNameMatches("  Acme   Digital\t", acme)).toBe(true);
    expect(partyNameMatches("Acme\u00a0Digital", acme)).toBe(true);
    expect(partyNameMatches("Acme\u2003Holdings Inc.", acme)).toBe(true);
  });

  it("treats Unicode compatibility forms as their plain letters", () => {
    expect(partyNameMatches("ＡＣＭＥ", acme)).toBe(true);
    expect(partyNameMatches("Acme Holdings Inc\uFF0E", acme)).toBe(true);
    expect(partyNameMatches("ﬁnch", { name: "Finch" })).toBe(true);
    expect(partyNameMatches("Müllerstrasse GmbH", { name: "MÜLLERSTRASSE GMBH" })).toBe(true);
    expect(partyNameMatches("Großbank AG", { name: "GROSSBANK AG" })).toBe(true);
  });

  it("keeps corporate designators and punctuation: a different suffix is a different name", () => {
    expect(partyNameMatches("Acme Holdings", acme)).toBe(false);
    expect(partyNameMatches("Acme Holdings LLC", acme)).toBe(false);
    expect(partyNameMatches("Acme Holdings Inc", acme)).toBe(false);
    expect(partyNameMatches("AcmeDigital", acme)).toBe(false);
  });

  it("never matches a blank candidate, and skips blank recorded names", () => {
    expect(partyNameMatches("", acme)).toBe(false);
    expect(partyNameMatches("   ", { name: "x", legal_name: "  ", aliases: ["", " "] })).toBe(false);
  });

  it("works with no legal name or aliases recorded", () => {
    expect(partyNameMatches("jane doe", { name: "Jane Doe" })).toBe(true);
    expect(partyNameMatches("jane doe", { name: "Jane Roe", legal_name: null, aliases: null })).toBe(false);
  });

  it("normalizes to lower case with single spaces", () => {
    expect(normalizePartyName("  Jane \n  DOE ")).toBe("jane doe");
  });
});
