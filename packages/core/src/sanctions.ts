import { listPartyNames, type NamedParty, normalizePartyName } from "./names";
import { addressComparisonKey, normalizeWallet, type WalletInput } from "./parties";

/**
 * Sanctions lists and screening.
 *
 * File format: JSON Lines (UTF-8). Each non-blank line is one JSON object
 *   {"kind": "address" | "name" | "identifier", "value": string, "network"?: string | null,
 *    "program"?: string | null, "source": string}
 * `value` and `source` must be non-blank; `network` is allowed on address entries only; no other
 * field is allowed. Lines whose first non-space character is `#` are comments. A file with any
 * malformed line is refused as a whole, each problem named with its 1-based line number: a list
 * loaded with silent gaps would screen as "clear" parties it should have caught.
 */
export const SANCTIONS_ENTRY_KINDS = ["address", "name", "identifier"] as const;
export type SanctionsEntryKind = (typeof SANCTIONS_ENTRY_KINDS)[number];

export interface SanctionsEntry {
  kind: SanctionsEntryKind;
  value: string;
  network: string | null;
  /** The sanctions programme, e.g. `CYBER2`. */
  program: string | null;
  /** Where the entry comes from, e.g. `OFAC SDN 2026-07-01`. */
  source: string;
}

export interface SanctionsListError {
  line: number;
  message: string;
}

export type SanctionsListParse = { ok: true; entries: SanctionsEntry[] } | { ok: false; errors: SanctionsListError[] };

const ENTRY_FIELDS = new Set(["kind", "value", "network", "program", "source"]);

export function parseSanctionsList(text: string): SanctionsListParse {
  const entries: SanctionsEntry[] = [];
  const errors: SanctionsListError[] = [];
  text
    .replace(/^\uFEFF/u, "")
    .split(/\r?\n/u)
    .forEach((rawLine, index) => {
      const line = index + 1;
      const trimmed = rawLine.trim();
      if (trimmed === "" || trimmed.startsWith("#")) return;
      const parsed = parseEntryLine(trimmed);
      if (parsed.ok) entries.push(parsed.entry);
      else errors.push(...parsed.problems.map((message) => ({ line, message })));
    });
  return errors.length === 0 ? { ok: true, entries } : { ok: false, errors };
}

function parseEntryLine(text: string): { ok: true; entry: SanctionsEntry } | { ok: false; problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problems: ["not valid JSON"] };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, problems: ["expected a JSON object"] };
  }
  const record = value as Record<string, unknown>;
  const problems = Object.keys(record)
    .filter((key) => !ENTRY_FIELDS.has(key))
    .map((key) => `unknown field ${JSON.stringify(key)}`);
  const kind = record.kind;
  if (typeof kind !== "string" || !(SANCTIONS_ENTRY_KINDS as readonly string[]).includes(kind)) {
    problems.push(`kind must be one of ${SANCTIONS_ENTRY_KINDS.join(", ")}`);
  }
  for (const field of ["value", "source"] as const) {
    if (typeof record[field] !== "string" || (record[field] as string).trim() === "") {
      problems.push(`${field} must be a non-blank string`);
    }
  }
  for (const field of ["network", "program"] as const) {
    if (record[field] !== undefined && record[field] !== null && typeof record[field] !== "string") {
      problems.push(`${field} must be a string or null`);
    }
  }
  if (kind !== "address" && typeof record.network === "string" && record.network.trim() !== "") {
    problems.push("network applies only to address entries");
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    entry: {
      kind: kind as SanctionsEntryKind,
      value: (record.value as string).trim(),
      network: blankToNull(record.network as string | null | undefined),
      program: blankToNull(record.program as string | null | undefined),
      source: (record.source as string).trim(),
    },
  };
}

function blankToNull(value: string | null | undefined): string | null {
  return value === null || value === undefined || value.trim() === "" ? null : value.trim();
}

const SANDBOX_SOURCE = "sandbox synthetic list (fictional)";

/**
 * The sandbox's synthetic list. Every name is invented and says so; every address is a made-up
 * pattern (EVM addresses of repeated 5a/5b/5c bytes, Bitcoin- and Tron-looking strings with
 * "sandbox" in them) that belongs to no known wallet.
 */
export const SANDBOX_SANCTIONS_LIST: readonly SanctionsEntry[] = [
  sandbox("address", "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a0001", "ethereum", "SANDBOX-CYBER"),
  sandbox("address", "0x5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B5B0002", "ethereum", "SANDBOX-CYBER"),
  sandbox("address", "0x5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c0003", "polygon", "SANDBOX-DPRK"),
  sandbox("address", "bc1qsandboxfictional000000000000000000001", "bitcoin", "SANDBOX-CYBER"),
  sandbox("address", "TSandboxFictionalTronAddress00000001", "tron", "SANDBOX-DPRK"),
  sandbox("name", "Fictional Sanctioned Trading Co. (Sandbox)", null, "SANDBOX-CYBER"),
  sandbox("name", "Imaginary Blocked Person (Sandbox)", null, "SANDBOX-DPRK"),
  sandbox("name", "Example Embargoed Exchange Ltd (Sandbox)", null, "SANDBOX-CYBER"),
  sandbox("identifier", "SANDBOX-TAXID-000-00-0001", null, "SANDBOX-CYBER"),
  sandbox("identifier", "SANDBOX-LEI-00000000000000000001", null, "SANDBOX-DPRK"),
];

function sandbox(kind: SanctionsEntryKind, value: string, network: string | null, program: string): SanctionsEntry {
  return { kind, value, network, program, source: SANDBOX_SOURCE };
}

// ---------------------------------------------------------------------------------------------
// Screening

export interface ScreenableParty extends NamedParty {
  party_id: string;
  /** Free-form, e.g. `{ "tax_id": "...", "lei": "..." }`; nested objects and arrays are searched too. */
  identifiers?: Readonly<Record<string, unknown>> | null;
  wallets?: readonly WalletInput[] | null;
}

export type SanctionsMatch =
  | { field: "name" | "legal_name" | "alias"; value: string }
  | { field: "wallet"; value: string; network: string | null }
  /** `path` names where in `identifiers` the value sits, e.g. `tax_id` or `ids.passport[0]`. */
  | { field: "identifier"; value: string; path: string };

export interface SanctionsHit {
  party_id: string;
  matched: SanctionsMatch;
  entry: SanctionsEntry;
}

/**
 * Screens parties against a list, returning every hit in party order:
 * - names: an entry of kind `name` against the party's name, legal name and aliases, matched as
 *   party names are (case, whitespace and Unicode compatibility forms do not matter);
 * - wallets: an entry of kind `address` against each wallet address (EVM addresses compare
 *   case-insensitively, others exactly). The networks are not required to agree: one EVM address
 *   is the same key holder on every EVM chain, and a false hit goes to a reviewer while a missed
 *   one does not;
 * - identifiers: every string or number value inside `identifiers`, exactly (after trimming),
 *   against entries of kind `identifier`, and against `address` entries the way wallets are
 *   (addresses are often recorded as identifiers).
 */
export function screenParties(parties: readonly ScreenableParty[], list: readonly SanctionsEntry[]): SanctionsHit[] {
  const byName = groupBy(list, "name", normalizePartyName);
  const byAddress = groupBy(list, "address", addressComparisonKey);
  const byIdentifier = groupBy(list, "identifier", (value) => value.trim());
  const hits: SanctionsHit[] = [];

  for (const party of parties) {
    // One hit per entry: the first of name, legal name, aliases that matches it.
    const namedEntries = new Set<SanctionsEntry>();
    for (const [field, value] of listPartyNames(party)) {
      for (const entry of byName.get(normalizePartyName(value)) ?? []) {
        if (namedEntries.has(entry)) continue;
        namedEntries.add(entry);
        hits.push({ party_id: party.party_id, matched: { field, value }, entry });
      }
    }
    for (const input of party.wallets ?? []) {
      const normalized = normalizeWallet(input);
      if (!normalized.ok) continue;
      const { address, network } = normalized.wallet;
      for (const entry of byAddress.get(addressComparisonKey(address)) ?? []) {
        hits.push({ party_id: party.party_id, matched: { field: "wallet", value: address, network }, entry });
      }
    }
    for (const [path, value] of listIdentifierValues(party.identifiers ?? {}, "")) {
      const entries = [...(byIdentifier.get(value) ?? []), ...(byAddress.get(addressComparisonKey(value)) ?? [])];
      for (const entry of entries) {
        hits.push({ party_id: party.party_id, matched: { field: "identifier", value, path }, entry });
      }
    }
  }
  return hits;
}

function groupBy(
  list: readonly SanctionsEntry[],
  kind: SanctionsEntryKind,
  keyOf: (value: string) => string,
): Map<string, SanctionsEntry[]> {
  const groups = new Map<string, SanctionsEntry[]>();
  for (const entry of list) {
    if (entry.kind !== kind) continue;
    const key = keyOf(entry.value);
    if (key === "") continue;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  return groups;
}

function listIdentifierValues(value: unknown, path: string): [string, string][] {
  if (typeof value === "string") return value.trim() === "" ? [] : [[path, value.trim()]];
  if (typeof value === "number" && Number.isFinite(value)) return [[path, String(value)]];
  if (Array.isArray(value)) return value.flatMap((item, index) => listIdentifierValues(item, `${path}[${index}]`));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => listIdentifierValues(item, path ? `${path}.${key}` : key));
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// Screening subjects that are not parties (a certificate's wallet, owner and custodian)

/** One thing screened: a wallet, or a name, with the role it plays (e.g. `wallet`, `owner`). */
export interface ScreenSubject {
  role: string;
  name?: string | null;
  wallet?: WalletInput | null;
}

export interface SubjectScreenMatch {
  role: string;
  matched: SanctionsMatch;
  entry: SanctionsEntry;
}

/**
 * The recorded result of screening subjects: `complete` only when the list screened against had
 * entries (an environment with no list configured screens nothing, and that is never a pass) and at
 * least one wallet was screened (a certificate of no wallet certifies nothing).
 */
export interface SubjectScreen {
  complete: boolean;
  list_size: number;
  matches: SubjectScreenMatch[];
}

/** Screens each subject as a party is screened (same matcher, same list), in subject order. */
export function screenSubjects(subjects: readonly ScreenSubject[], list: readonly SanctionsEntry[]): SubjectScreen {
  const matches = subjects.flatMap((subject) =>
    screenParties(
      [{ party_id: subject.role, name: subject.name ?? "", wallets: subject.wallet ? [subject.wallet] : [] }],
      list,
    ).map((hit) => ({ role: subject.role, matched: hit.matched, entry: hit.entry })),
  );
  const walletScreened = subjects.some((subject) => subject.wallet && normalizeWallet(subject.wallet).ok);
  return { complete: list.length > 0 && walletScreened, list_size: list.length, matches };
}

// ---------------------------------------------------------------------------------------------
// The 2026-06-11 sanctions screen of a matter's wallets, entities and counterparties

export const SCREEN_SUBJECTS = ["wallet", "entity", "counterparty"] as const;
export type ScreenSubjectKind = (typeof SCREEN_SUBJECTS)[number];

/**
 * What makes two screen matches on one matter the same hit: the list entry, the subject kind and the
 * matched value as the matcher compares it (an EVM address in any case, a name in any spacing).
 */
export function screenMatchKey(match: SubjectScreenMatch): { subject: string; value: string; entry: SanctionsEntry } {
  const value =
    match.matched.field === "wallet"
      ? addressComparisonKey(match.matched.value)
      : normalizePartyName(match.matched.value);
  return { subject: match.role, value, entry: match.entry };
}

const SCREEN_ACTIONS = {
  paused:
    "Ordinary collection is paused: remittances and packets other than sanctions_review and ofac_report are refused until every open hit on the matter is cleared.",
  review:
    "Prepare a sanctions review of this screen: POST /v1/sanctions/review-packet with its review_id as screen_id.",
  clear:
    "A reviewer reviews each open hit and clears a false positive (operator.clearSanctionsHit); a true match stays open.",
  report: "If the review finds blocked property, prepare the OFAC report: POST /v1/sanctions/ofac-report-workflow.",
  cleared:
    "Every hit this screen matched was cleared by a reviewer as a false positive: none of them needs anything more.",
} as const;

/**
 * What a screen asks of the caller, in order: nothing when it matched nothing; "collection is paused"
 * exactly when the matter is held (`ordinary_collection_paused`); review, clearing and the OFAC
 * report while a hit it matched is open, else that its hits were all cleared.
 */
export function screenRequiredActions(screen: { matched: number; open: number; held: boolean }): string[] {
  if (screen.matched === 0) return [];
  return [
    ...(screen.held ? [SCREEN_ACTIONS.paused] : []),
    ...(screen.open > 0
      ? [SCREEN_ACTIONS.review, SCREEN_ACTIONS.clear, SCREEN_ACTIONS.report]
      : [SCREEN_ACTIONS.cleared]),
  ];
}

/** A sanctions hit as a sanctions review binds it: a snapshot at assembly. */
export interface ReviewedSanctionsHit {
  hit_id: string;
  subject: string;
  status: string;
  matched_value: string;
  entry: SanctionsEntry;
}

/** Whether the screened property is blocked, from the hits reviewed (see `analyzeBlockedProperty`). */
export interface BlockedPropertyAnalysis {
  property_blocked: boolean;
  blocked_wallets: string[];
  blocked_persons: string[];
  programs: string[];
}

/**
 * Property is blocked while a reviewed hit is still open (a cleared hit was a false positive): its
 * wallets and persons are listed, and an OFAC report of blocked property is required.
 */
export function analyzeBlockedProperty(hits: readonly ReviewedSanctionsHit[]): BlockedPropertyAnalysis {
  const open = hits.filter((hit) => hit.status === "open");
  const unique = (values: string[]) => [...new Set(values)];
  return {
    property_blocked: open.length > 0,
    blocked_wallets: unique(open.filter((hit) => hit.subject === "wallet").map((hit) => hit.matched_value)),
    blocked_persons: unique(open.filter((hit) => hit.subject !== "wallet").map((hit) => hit.matched_value)),
    programs: unique(open.flatMap((hit) => (hit.entry.program ? [hit.entry.program] : []))).sort(),
  };
}
