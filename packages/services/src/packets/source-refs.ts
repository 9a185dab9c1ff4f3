import type { PacketSourceRef } from "@crs/core";

/** A source ref as a request may send it: every field but `source_id` may be left out. */
export interface SourceRefSent {
  source_id: string;
  source_type?: string | null | undefined;
  title?: string | null | undefined;
  uri?: string | null | undefined;
  hash?: string | null | undefined;
  chain_of_custody_id?: string | null | undefined;
  admissibility_notes?: string | null | undefined;
}

/** Source refs as they are stored and bound (a packet's `source_refs`, an action's `evidence_refs`): missing fields are null. */
export function normalizeSourceRefs(refs: readonly SourceRefSent[] | undefined): PacketSourceRef[] {
  return (refs ?? []).map((ref) => ({
    source_id: ref.source_id,
    source_type: ref.source_type ?? null,
    title: ref.title ?? null,
    uri: ref.uri ?? null,
    hash: ref.hash ?? null,
    chain_of_custody_id: ref.chain_of_custody_id ?? null,
    admissibility_notes: ref.admissibility_notes ?? null,
  }));
}
