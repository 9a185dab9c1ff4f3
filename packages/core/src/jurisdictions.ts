/**
 * How long a money judgment lives before it must be renewed, revived or extended, by jurisdiction.
 *
 * Codes are ISO 3166: a country is its alpha-2 code (`IE`, `DE`), a US state or the District of
 * Columbia its ISO 3166-2 subdivision code (`US-CA`, `US-DC`), England and Wales the BS 6879 code
 * that ISO 3166-2:GB lists for it (`GB-EAW`). The United Kingdom as a whole has no entry: Scotland
 * and Northern Ireland have their own rules.
 *
 * Each life is counted from the date the judgment was entered. Several statutes run from the date
 * the judgment first became enforceable, which is never earlier, so counting from entry can only
 * put the deadline earlier than the statute would. Renewals, revivals, tolling while a stay is in
 * force and special judgments (child support, judgments for the United States) are not modelled:
 * when counsel renews a judgment, the judgment's `renewal_deadline` records the new date.
 *
 * Only rules checked against the statute's text are listed. Some common jurisdictions are left out
 * on purpose because one number would misstate them: Virginia and Arizona changed their periods
 * for judgments entered after a cut-off date, Virginia's also differ by court, and Pennsylvania,
 * Colorado and Delaware give the judgment lien a shorter life than the judgment itself.
 */
export interface JudgmentLifeRule {
  code: string;
  name: string;
  life_years: number;
  /** The statute the life comes from, as it appears in a deadline's basis. */
  citation: string;
  /** Names and abbreviations a caller may write instead of the code, matched after normalization. */
  aliases: readonly string[];
  /** Bluebook abbreviation used in federal district court names ("S.D.N.Y.", "N.D. Cal."). */
  district_abbreviation?: string;
}

/** The life assumed for a jurisdiction that is not in the table. */
export const DEFAULT_JUDGMENT_LIFE_YEARS = 10;

export const JUDGMENT_LIFE_RULES: readonly JudgmentLifeRule[] = [
  // Cal. Code Civ. Proc. § 683.020: a money judgment may not be enforced after 10 years from
  // entry; renewable for another 10 under § 683.110-683.120.
  {
    code: "US-CA",
    name: "California",
    life_years: 10,
    citation: "Cal. Code Civ. Proc. § 683.020",
    aliases: ["california", "state of california", "cal.", "calif."],
    district_abbreviation: "cal.",
  },
  // N.Y. CPLR 211(b): a money judgment is presumed paid and satisfied 20 years after the creditor
  // was first entitled to enforce it.
  {
    code: "US-NY",
    name: "New York",
    life_years: 20,
    citation: "N.Y. CPLR 211(b)",
    aliases: ["new york", "state of new york", "n.y."],
    district_abbreviation: "n.y.",
  },
  // Tex. Civ. Prac. & Rem. Code § 34.001: a judgment is dormant if no writ of execution issues
  // within 10 years of rendition (revival within 2 years under § 31.006).
  {
    code: "US-TX",
    name: "Texas",
    life_years: 10,
    citation: "Tex. Civ. Prac. & Rem. Code § 34.001",
    aliases: ["texas", "state of texas", "tex."],
    district_abbreviation: "tex.",
  },
  // Fla. Stat. § 55.081: no judgment is a lien on property after 20 years from entry
  // (actions on Florida judgments of record: 20 years, § 95.11(1)).
  {
    code: "US-FL",
    name: "Florida",
    life_years: 20,
    citation: "Fla. Stat. § 55.081",
    aliases: ["florida", "state of florida", "fla."],
    district_abbreviation: "fla.",
  },
  // 735 ILCS 5/12-108(a): no judgment is enforced after 7 years from rendition unless revived
  // (revival under 735 ILCS 5/2-1602, within 20 years of entry).
  {
    code: "US-IL",
    name: "Illinois",
    life_years: 7,
    citation: "735 ILCS 5/12-108(a)",
    aliases: ["illinois", "state of illinois", "ill."],
    district_abbreviation: "ill.",
  },
  // N.J. Stat. Ann. § 2A:14-5: a judgment may be revived or sued on within 20 years.
  {
    code: "US-NJ",
    name: "New Jersey",
    life_years: 20,
    citation: "N.J. Stat. Ann. § 2A:14-5",
    aliases: ["new jersey", "state of new jersey", "n.j."],
    district_abbreviation: "n.j.",
  },
  // O.C.G.A. § 9-12-60: a judgment becomes dormant 7 years after rendition unless execution is
  // issued and recorded (revival within 3 years of dormancy, § 9-12-61).
  {
    code: "US-GA",
    name: "Georgia",
    life_years: 7,
    citation: "Ga. Code Ann. § 9-12-60",
    aliases: ["georgia", "state of georgia", "ga."],
    district_abbreviation: "ga.",
  },
  // Rev. Code Wash. § 6.17.020(1): execution may issue within 10 years of entry; one 10-year
  // extension if applied for within 90 days before expiry (§ 6.17.020(3)).
  {
    code: "US-WA",
    name: "Washington",
    life_years: 10,
    citation: "Wash. Rev. Code § 6.17.020",
    aliases: ["washington state", "state of washington", "wash."],
    district_abbreviation: "wash.",
  },
  // D.C. Code § 15-101: a money judgment is enforceable for 12 years from when execution might
  // first issue, or from its last revival.
  {
    code: "US-DC",
    name: "District of Columbia",
    life_years: 12,
    citation: "D.C. Code § 15-101",
    aliases: ["district of columbia", "washington, d.c.", "washington d.c.", "d.c."],
    district_abbreviation: "d.c.",
  },
  // Mich. Comp. Laws § 600.5809(3): an action on a judgment must be brought within 10 years of
  // entry; renewable within that period.
  {
    code: "US-MI",
    name: "Michigan",
    life_years: 10,
    citation: "Mich. Comp. Laws § 600.5809(3)",
    aliases: ["michigan", "state of michigan", "mich."],
    district_abbreviation: "mich.",
  },
  // N.C. Gen. Stat. § 1-47(1): an action upon a judgment within 10 years of its entry; the lien
  // also lasts 10 years (§ 1-234).
  {
    code: "US-NC",
    name: "North Carolina",
    life_years: 10,
    citation: "N.C. Gen. Stat. § 1-47(1)",
    aliases: ["north carolina", "state of north carolina", "n.c."],
    district_abbreviation: "n.c.",
  },
  // Mass. Gen. Laws ch. 260, § 20: a judgment is presumed paid and satisfied 20 years after it
  // was rendered (a rebuttable presumption).
  {
    code: "US-MA",
    name: "Massachusetts",
    life_years: 20,
    citation: "Mass. Gen. Laws ch. 260, § 20",
    aliases: ["massachusetts", "commonwealth of massachusetts", "mass."],
    district_abbreviation: "mass.",
  },
  // Nev. Rev. Stat. § 11.190(1)(a): an action upon a judgment within 6 years; renewal by
  // affidavit filed within 90 days before expiry (§ 17.214).
  {
    code: "US-NV",
    name: "Nevada",
    life_years: 6,
    citation: "Nev. Rev. Stat. § 11.190(1)(a)",
    aliases: ["nevada", "state of nevada", "nev."],
    district_abbreviation: "nev.",
  },
  // Limitation Act 1980 s. 24(1): no action upon a judgment after 6 years from the date it
  // became enforceable; execution after 6 years needs the court's permission (CPR 83.2(3)).
  {
    code: "GB-EAW",
    name: "England and Wales",
    life_years: 6,
    citation: "Limitation Act 1980 s. 24(1)",
    aliases: ["england and wales", "england & wales", "england", "wales", "gb-eng", "gb-wls"],
  },
  // Statute of Limitations 1957 s. 11(6)(a): no action upon a judgment after 12 years from the
  // date it became enforceable.
  {
    code: "IE",
    name: "Ireland",
    life_years: 12,
    citation: "Statute of Limitations 1957 s. 11(6)(a)",
    aliases: ["ireland", "republic of ireland"],
  },
  // Limitation Ordinance (Cap. 347) s. 4(4): no action upon a judgment after 12 years from the
  // date it became enforceable.
  {
    code: "HK",
    name: "Hong Kong",
    life_years: 12,
    citation: "Limitation Ordinance (Cap. 347) s. 4(4)",
    aliases: ["hong kong", "hong kong sar", "hksar"],
  },
  // Limitation Act 1959 s. 6(3): no action upon a (Singapore) judgment after 12 years from the
  // date it became enforceable.
  {
    code: "SG",
    name: "Singapore",
    life_years: 12,
    citation: "Limitation Act 1959 s. 6(3)",
    aliases: ["singapore", "republic of singapore"],
  },
  // BGB § 197(1) no. 3: claims established by a final judgment are time-barred after 30 years.
  {
    code: "DE",
    name: "Germany",
    life_years: 30,
    citation: "BGB § 197(1) Nr. 3",
    aliases: ["germany", "deutschland", "federal republic of germany"],
  },
  // Code des procédures civiles d'exécution art. L111-4: judgments may be executed only within
  // 10 years.
  {
    code: "FR",
    name: "France",
    life_years: 10,
    citation: "Code des procédures civiles d'exécution art. L111-4",
    aliases: ["france", "république française", "french republic"],
  },
];

export type JurisdictionResolution =
  | { resolved: true; rule: JudgmentLifeRule; via: "code" | "name" | "federal_district" }
  | { resolved: false; reason: "blank" | "ambiguous" | "unknown" };

/**
 * US postal abbreviations of states. Written bare, two letters are ambiguous: "DE" is Germany's
 * ISO code and Delaware's postal code, "CA" Canada's and California's. Such input is left
 * unresolved rather than guessed.
 */
const US_POSTAL_CODES = new Set(
  (
    "AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH " +
    "OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC"
  ).split(" "),
);

const RULES_BY_CODE = new Map(JUDGMENT_LIFE_RULES.map((rule) => [rule.code.toLowerCase(), rule]));
const RULES_BY_ALIAS = new Map(
  JUDGMENT_LIFE_RULES.flatMap((rule) => rule.aliases.map((alias) => [normalizeJurisdictionText(alias), rule] as const)),
);
const US_RULES = JUDGMENT_LIFE_RULES.filter((rule) => rule.code.startsWith("US-"));
const US_RULES_BY_DISTRICT_ABBREVIATION = new Map(
  US_RULES.flatMap((rule) =>
    rule.district_abbreviation ? [[normalizeJurisdictionText(rule.district_abbreviation), rule] as const] : [],
  ),
);
/** "Western District of Washington" names the state plainly, so the bare state name counts here. */
const US_RULES_BY_STATE_NAME = new Map(
  US_RULES.flatMap((rule) =>
    [rule.name, ...rule.aliases].map((name) => [normalizeJurisdictionText(name), rule] as const),
  ),
);

/**
 * The comparison form of a jurisdiction: NFKC, lower case, single spaces, no space after an
 * abbreviating period and no final period, so "N.D. Cal.", "n.d.  cal" and "N.D.Cal" are one text.
 */
export function normalizeJurisdictionText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .trim()
    .replace(/\s+/gu, " ")
    .replace(/\. (?=\S)/gu, ".")
    .replace(/\.$/u, "");
}

const FEDERAL_COURT_PREFIX = /^(?:united states|u\.s\.|us) ?district court(?: for the|,)? ?/u;
const DISTRICT_ABBREVIATION = /^(?:[nsewcm]\.)?d\.(.+)$/u;
const DISTRICT_NAME = /^(?:(?:northern|southern|eastern|western|central|middle) )?district of (.+)$/u;

/**
 * Finds the judgment-life rule for a jurisdiction as a caller wrote it: a table code (`US-CA`,
 * any case), a name or abbreviation of the table (`California`, `Cal.`), or a federal district
 * court (`N.D. Cal.`, `S.D.N.Y.`, `Southern District of New York`, `United States District Court
 * for the District of Columbia`). A federal judgment follows the law of the state where the
 * district court sits (28 U.S.C. § 1962; Fed. R. Civ. P. 69(a)). Anything else (a state court's
 * full name, "UK", a bare postal code) stays unresolved: guessing could only produce a deadline
 * nobody stated.
 */
export function resolveJurisdiction(text: string | null | undefined): JurisdictionResolution {
  const normalized = normalizeJurisdictionText(text ?? "");
  if (normalized === "") return { resolved: false, reason: "blank" };
  // Checked before the final period is dropped: "Ga." is Georgia's abbreviation, "GA" is ambiguous.
  const bare = (text ?? "").normalize("NFKC").trim().toUpperCase();
  if (/^[A-Z]{2}$/u.test(bare) && US_POSTAL_CODES.has(bare)) {
    return { resolved: false, reason: "ambiguous" };
  }
  const byCode = RULES_BY_CODE.get(normalized);
  if (byCode) return { resolved: true, rule: byCode, via: "code" };
  const byName = RULES_BY_ALIAS.get(normalized);
  if (byName) return { resolved: true, rule: byName, via: "name" };
  const district = findFederalDistrictState(normalized.replace(FEDERAL_COURT_PREFIX, ""));
  if (district) return { resolved: true, rule: district, via: "federal_district" };
  return { resolved: false, reason: "unknown" };
}

/** Looks a rule up by its table code only. */
export function findJudgmentLifeRule(code: string): JudgmentLifeRule | undefined {
  return RULES_BY_CODE.get(code.toLowerCase());
}

function findFederalDistrictState(text: string): JudgmentLifeRule | undefined {
  if (text === "district of columbia") return RULES_BY_CODE.get("us-dc");
  const abbreviated = DISTRICT_ABBREVIATION.exec(text)?.[1];
  if (abbreviated !== undefined) return US_RULES_BY_DISTRICT_ABBREVIATION.get(abbreviated);
  const named = DISTRICT_NAME.exec(text)?.[1];
  if (named !== undefined) return US_RULES_BY_STATE_NAME.get(named);
  return undefined;
}
