import { describe, expect, it } from "vitest";
import {
  DEFAULT_JUDGMENT_LIFE_YEARS,
  findJudgmentLifeRule,
  JUDGMENT_LIFE_RULES,
  resolveJurisdiction,
} from "../src/jurisdictions";

/** The life each statute gives, as read from the statute (kept apart from the table on purpose). */
const EXPECTED_LIFE_YEARS: Record<string, number> = {
  "US-CA": 10, // Cal. Code Civ. Proc. § 683.020
  "US-NY": 20, // N.Y. CPLR 211(b)
  "US-TX": 10, // Tex. Civ. Prac. & Rem. Code § 34.001
  "US-FL": 20, // Fla. Stat. § 55.081
  "US-IL": 7, // 735 ILCS 5/12-108(a)
  "US-NJ": 20, // N.J. Stat. Ann. § 2A:14-5
  "US-GA": 7, // Ga. Code Ann. § 9-12-60
  "US-WA": 10, // Wash. Rev. Code § 6.17.020
  "US-DC": 12, // D.C. Code § 15-101
  "US-MI": 10, // Mich. Comp. Laws § 600.5809(3)
  "US-NC": 10, // N.C. Gen. Stat. § 1-47(1)
  "US-MA": 20, // Mass. Gen. Laws ch. 260, § 20
  "US-NV": 6, // Nev. Rev. Stat. § 11.190(1)(a)
  "GB-EAW": 6, // Limitation Act 1980 s. 24(1)
  IE: 12, // Statute of Limitations 1957 s. 11(6)(a)
  HK: 12, // Limitation Ordinance (Cap. 347) s. 4(4)
  SG: 12, // Limitation Act 1959 s. 6(3)
  DE: 30, // BGB § 197(1) Nr. 3
  FR: 10, // Code des procédures civiles d'exécution art. L111-4
};

function resolvedCode(text: string | null): string | null {
  const resolution = resolveJurisdiction(text);
  return resolution.resolved ? resolution.rule.code : null;
}

describe("judgment-life table", () => {
  it("gives each jurisdiction the life its statute sets, and lists no other", () => {
    const table = Object.fromEntries(JUDGMENT_LIFE_RULES.map((rule) => [rule.code, rule.life_years]));
    expect(table).toEqual(EXPECTED_LIFE_YEARS);
  });

  it("cites a statute for every entry and uses ISO 3166 style codes, each once", () => {
    for (const rule of JUDGMENT_LIFE_RULES) {
      expect(rule.citation.trim(), rule.code).not.toBe("");
      expect(rule.code, rule.code).toMatch(/^[A-Z]{2}(-[A-Z]{2,3})?$/);
    }
    expect(new Set(JUDGMENT_LIFE_RULES.map((rule) => rule.code)).size).toBe(JUDGMENT_LIFE_RULES.length);
  });

  it("defaults to 10 years for a jurisdiction it does not list", () => {
    expect(DEFAULT_JUDGMENT_LIFE_YEARS).toBe(10);
  });

  it("resolves every entry's code (except Germany's DE, which is also Delaware's) and every alias to that entry", () => {
    for (const rule of JUDGMENT_LIFE_RULES) {
      expect(resolvedCode(rule.code), rule.code).toBe(rule.code === "DE" ? null : rule.code);
      for (const alias of rule.aliases) expect(resolvedCode(alias), alias).toBe(rule.code);
    }
  });

  it("never gives two entries the same alias", () => {
    const aliases = JUDGMENT_LIFE_RULES.flatMap((rule) => rule.aliases.map((alias) => alias.toLowerCase()));
    expect(new Set(aliases).size).toBe(aliases.length);
  });
});

describe("resolveJurisdiction", () => {
  it("accepts a table code in any case", () => {
    expect(resolveJurisdiction("us-ca")).toMatchObject({ resolved: true, via: "code", rule: { code: "US-CA" } });
    expect(resolvedCode("gb-eaw")).toBe("GB-EAW");
  });

  it("accepts names and court abbreviations, whatever the case, spacing or compatibility form", () => {
    expect(resolveJurisdiction("California")).toMatchObject({ resolved: true, via: "name", rule: { code: "US-CA" } });
    expect(resolvedCode("  NEW   york ")).toBe("US-NY");
    expect(resolvedCode("Cal.")).toBe("US-CA");
    expect(resolvedCode("N. Y.")).toBe("US-NY");
    expect(resolvedCode("ＴＥＸＡＳ")).toBe("US-TX");
    expect(resolvedCode("Washington, D.C.")).toBe("US-DC");
    expect(resolvedCode("England & Wales")).toBe("GB-EAW");
    expect(resolvedCode("Hong Kong SAR")).toBe("HK");
  });

  it("resolves a federal district court to the state where it sits", () => {
    const cases: [string, string][] = [
      ["N.D. Cal.", "US-CA"],
      ["N.D.Cal", "US-CA"],
      ["S.D.N.Y.", "US-NY"],
      ["E.D.N.Y", "US-NY"],
      ["D.N.J.", "US-NJ"],
      ["D.D.C.", "US-DC"],
      ["W.D. Tex.", "US-TX"],
      ["S.D. Fla.", "US-FL"],
      ["N.D. Ill.", "US-IL"],
      ["N.D. Ga.", "US-GA"],
      ["W.D. Wash.", "US-WA"],
      ["E.D. Mich.", "US-MI"],
      ["M.D.N.C.", "US-NC"],
      ["D. Mass.", "US-MA"],
      ["D. Nev.", "US-NV"],
      ["Southern District of New York", "US-NY"],
      ["Western District of Washington", "US-WA"],
      ["District of New Jersey", "US-NJ"],
      ["United States District Court for the Northern District of California", "US-CA"],
      ["U.S. District Court for the District of Columbia", "US-DC"],
      ["US District Court, Southern District of Florida", "US-FL"],
    ];
    for (const [text, code] of cases) {
      expect(resolveJurisdiction(text), text).toMatchObject({
        resolved: true,
        via: "federal_district",
        rule: { code },
      });
    }
  });

  it("leaves a bare US postal abbreviation unresolved as ambiguous (DE is also Germany, CA also Canada)", () => {
    for (const text of ["CA", "de", "NY", "Ga", "IN"]) {
      expect(resolveJurisdiction(text), text).toEqual({ resolved: false, reason: "ambiguous" });
    }
    expect(findJudgmentLifeRule("DE")?.name).toBe("Germany");
  });

  it("leaves everything else unresolved rather than guessing", () => {
    for (const text of [
      "UK",
      "United Kingdom",
      "Scotland",
      "Washington",
      "Narnia",
      "Superior Court of California, County of Los Angeles",
      "N.D. Narnia",
      "Southern District of Narnia",
      "District of England",
    ]) {
      expect(resolveJurisdiction(text), text).toEqual({ resolved: false, reason: "unknown" });
    }
    expect(resolveJurisdiction("  ")).toEqual({ resolved: false, reason: "blank" });
    expect(resolveJurisdiction(null)).toEqual({ resolved: false, reason: "blank" });
  });
});
