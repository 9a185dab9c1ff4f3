import { createHash } from "node:crypto";
import { canonicalize } from "./canonical-json";

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 over the RFC 8785 canonical form of a value. */
export function hashCanonical(value: unknown): string {
  return sha256Hex(canonicalize(value));
}
