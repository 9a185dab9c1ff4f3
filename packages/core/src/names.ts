/**
 * Matching a name written on a judgment (or a sanctions list) against a party's recorded names.
 *
 * Two names match when they are equal after NFKC normalization (full-width letters, ligatures and
 * non-breaking spaces become their plain forms), case folding, trimming and collapsing inner runs
 * of whitespace. Nothing else is forgiven: corporate designators ("Inc", "LLC", "Ltd") and
 * punctuation are kept, because "Acme Inc" and "Acme LLC" can be two different legal persons and
 * linking a judgment to the wrong one is worse than asking the caller to record an alias.
 */
export interface NamedParty {
  name: string;
  legal_name?: string | null;
  aliases?: readonly string[] | null;
}

export type PartyNameField = "name" | "legal_name" | "alias";

export interface PartyNameMatch {
  field: PartyNameField;
  /** The party's recorded name that matched, as recorded. */
  value: string;
}

/** The comparison form of a name. */
export function normalizePartyName(text: string): string {
  // Upper- then lower-casing folds characters whose lower case alone does not (ß → ss).
  return text.normalize("NFKC").toUpperCase().toLowerCase().trim().replace(/\s+/gu, " ");
}

/** Which of the party's names (name, then legal name, then aliases in order) the candidate matches. */
export function findPartyNameMatch(candidate: string, party: NamedParty): PartyNameMatch | null {
  const wanted = normalizePartyName(candidate);
  if (wanted === "") return null;
  for (const [field, value] of listPartyNames(party)) {
    if (normalizePartyName(value) === wanted) return { field, value };
  }
  return null;
}

export function partyNameMatches(candidate: string, party: NamedParty): boolean {
  return findPartyNameMatch(candidate, party) !== null;
}

/** Every recorded name of a party with the field it came from, blank ones left out. */
export function listPartyNames(party: NamedParty): [PartyNameField, string][] {
  const names: [PartyNameField, string][] = [["name", party.name]];
  if (party.legal_name) names.push(["legal_name", party.legal_name]);
  for (const alias of party.aliases ?? []) names.push(["alias", alias]);
  return names.filter(([, value]) => value.trim() !== "");
}
