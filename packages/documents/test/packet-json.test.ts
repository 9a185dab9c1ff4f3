import { createHash, createPublicKey, verify } from "node:crypto";
import { canonicalize } from "@crs/core";
import { describe, expect, it } from "vitest";
import { checkChainEntries } from "../src/packet-document";
import { buildPacketJson, PACKET_BUNDLE_OBJECT } from "../src/packet-json";
import { buildFixtureDocument } from "./fixture";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const parse = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

/** An Ed25519 public key from its raw 32 bytes (hex), through JWK: no project code involved. */
function ed25519Key(hex: string) {
  return createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(hex, "hex").toString("base64url") },
    format: "jwk",
  });
}

describe("buildPacketJson", () => {
  it("is one canonical JSON document from which a recipient recomputes the content hash", () => {
    const document = buildFixtureDocument({ format: "json" });
    const bytes = buildPacketJson(document);
    const text = new TextDecoder().decode(bytes);
    const bundle = JSON.parse(text);
    expect(bundle.object).toBe(PACKET_BUNDLE_OBJECT);
    // The file is its own canonical form: re-canonicalizing what was parsed gives the same text.
    expect(text).toBe(`${canonicalize(bundle)}\n`);
    expect(sha256(canonicalize(bundle.manifest))).toBe(document.packet.content_hash);
    expect(bundle.integrity.content_hash).toBe(document.packet.content_hash);
    expect(bundle.packet.freeze_targets).toEqual(document.manifest.wallets);
    expect(bundle.integrity.prior_exports).toEqual(document.prior_exports);
  });

  it("carries chain entries whose hashes and signatures a recipient can check without our code", () => {
    const bundle = parse(buildPacketJson(buildFixtureDocument({ format: "json" })));
    const chain = bundle.chain_of_custody;
    expect(chain.included).toBe(true);
    expect(chain.data_withheld).toBe(false);
    const key = ed25519Key(chain.event_signing_key);
    let previous: string | null = null;
    for (const event of chain.events) {
      const { hash, signature, ...hashed } = event;
      expect(sha256(`${event.prev_hash}\n${canonicalize(hashed)}`)).toBe(hash);
      expect(verify(null, Buffer.from(hash, "utf8"), key, Buffer.from(signature, "hex"))).toBe(true);
      if (previous) expect(event.prev_hash).toBe(previous);
      previous = hash;
    }
    expect(chain.entry_checks.every((check: { hash_valid: boolean }) => check.hash_valid)).toBe(true);
  });

  it("withholds event data and masks party details under the external profile, keeping hashes verifiable", () => {
    const bundle = parse(buildPacketJson(buildFixtureDocument({ format: "json", redaction_profile: "external" })));
    const text = JSON.stringify(bundle);
    expect(text).not.toContain("ana@example.com");
    expect(text).not.toContain("claims@acme.example");
    expect(bundle.parties[0].contact.email).toBe("[redacted]");
    const chain = bundle.chain_of_custody;
    expect(chain.data_withheld).toBe(true);
    const key = ed25519Key(chain.event_signing_key);
    for (const event of chain.events) {
      expect(event.data).toBeNull();
      expect(verify(null, Buffer.from(event.hash, "utf8"), key, Buffer.from(event.signature, "hex"))).toBe(true);
    }
    expect(sha256(canonicalize(bundle.manifest))).toBe(bundle.integrity.content_hash);
  });

  it("says the chain of custody was not included when the export leaves it out", () => {
    const bundle = parse(buildPacketJson(buildFixtureDocument({ format: "json", include_chain_of_custody: false })));
    expect(bundle.chain_of_custody).toEqual({ object: "chain_of_custody", included: false });
  });
});

describe("checkChainEntries", () => {
  it("catches an edited event, a forged signature and a broken link", () => {
    const chain = buildFixtureDocument().chain_of_custody!;
    chain.events[1]!.data = { edited: true };
    chain.events[3]!.signature = chain.events[2]!.signature;
    chain.events[4]!.prev_hash = "f".repeat(64);
    const checks = checkChainEntries(chain);
    expect(checks.map((c) => c.hash_valid)).toEqual([true, false, true, true, false]);
    expect(checks.map((c) => c.signature_valid)).toEqual([true, true, true, false, true]);
    expect(checks.map((c) => c.links_to_previous)).toEqual([null, true, true, true, false]);
  });

  it("leaves signatures unchecked when no key is given", () => {
    const chain = { ...buildFixtureDocument().chain_of_custody!, event_signing_key: null };
    expect(checkChainEntries(chain).every((c) => c.signature_valid === null && c.hash_valid)).toBe(true);
  });
});
