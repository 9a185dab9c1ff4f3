import { API_VERSIONS, type Capabilities, OPERATIONS, SCOPES } from "@crs/contract";
import { publicKeyHex } from "@crs/core";
import type { ServiceDeps } from "../context";

export function describeCapabilities(deps: ServiceDeps): Capabilities {
  const operations = Object.values(OPERATIONS);
  return {
    object: "capabilities",
    capabilities: operations.map((op) => op.id),
    modules: [...new Set(operations.map((op) => op.tag))],
    environments: ["sandbox", "live"],
    versions: [...API_VERSIONS],
    scopes: [...SCOPES],
    notes:
      "Every state change appends an event to a per-organization sha256 hash chain; each event hash is signed with Ed25519. Verify offline with event_signing_key.",
    event_signing_key: {
      algorithm: "ed25519",
      public_key: publicKeyHex(deps.eventSigningKey),
      signature_input:
        'Ed25519 over the UTF-8 bytes of the lowercase hex `hash`; hash = sha256(prev_hash + "\\n" + JCS(event without hash and signature))',
    },
  };
}
