import {
  API_VERSIONS,
  type Capabilities,
  CURRENT_OPERATIONS,
  LEGACY_OPERATIONS,
  LEGACY_SCOPES,
  SCOPES,
} from "@crs/contract";
import { publicKeyHex } from "@crs/core";
import type { ReadContext } from "../context";

export async function describeCapabilities(read: ReadContext): Promise<Capabilities> {
  // The legacy listener also serves its version's own operations, to keys holding their scopes.
  const legacy = read.surface === "legacy";
  const operations = [...CURRENT_OPERATIONS, ...(legacy ? LEGACY_OPERATIONS : [])].map(({ definition }) => definition);
  return {
    object: "capabilities",
    capabilities: operations.map((op) => op.id),
    modules: [...new Set(operations.map((op) => op.tag))],
    environments: ["sandbox", "live"],
    versions: [...API_VERSIONS],
    scopes: [...SCOPES, ...(legacy ? LEGACY_SCOPES : [])],
    notes:
      "Every state change appends an event to a per-organization sha256 hash chain; each event hash is signed with Ed25519. Verify offline with event_signing_key.",
    event_signing_key: {
      algorithm: "ed25519",
      public_key: publicKeyHex(read.eventSigningKey),
      signature_input:
        'Ed25519 over the UTF-8 bytes of the lowercase hex `hash`; hash = sha256(prev_hash + "\\n" + JCS(event without hash and signature))',
    },
    sanctions_screening: {
      sandbox: { list: "synthetic", entries: read.sanctionsLists.sandbox.length },
      live: { configured: read.sanctionsLists.live !== null, entries: read.sanctionsLists.live?.entries.length ?? 0 },
      notes: read.sanctionsLists.live
        ? "Sandbox parties are screened against a synthetic, fictional list; live parties against the list this deployment loaded at start."
        : "Sandbox parties are screened against a synthetic, fictional list. No list is configured for live organizations (SANCTIONS_LIST_PATH): live parties are not screened, and no hit can be raised.",
    },
  };
}
