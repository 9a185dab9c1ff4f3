import { hash } from "node:crypto";
import { canonicalize } from "./canonical-json";

export function sha256Hex(data: string | Uint8Array): string {
  // The one-shot hash avoids a Hash object per call (a trace result hashes tens of thousands of ids).
  return hash("sha256", data, "hex");
}

/** sha256 over the RFC 8785 canonical form of a value. */
export function hashCanonical(value: unknown): string {
  return sha256Hex(canonicalize(value));
}
