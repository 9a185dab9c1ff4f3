import { canonicalize, sha256Hex } from "@crs/core";
import { type Zippable, zipSync } from "fflate";
import type { PacketDocument } from "./packet-document";
import { buildChainOfCustodyObject, buildPacketJsonObject, encodeCanonicalJson } from "./packet-json";
import { renderPacketPdf } from "./packet-pdf";

export const PACKET_ZIP_ENTRIES = [
  "packet.pdf",
  "packet.json",
  "chain-of-custody.json",
  "manifest.json",
  "SHA256SUMS",
] as const;

/** Regular file, rw-r--r--, as Unix external attributes. */
const FILE_MODE = 0o100644;
const UNIX = 3;
const DEFLATE_LEVEL = 9;

/**
 * The zip export: packet.pdf, packet.json, chain-of-custody.json, manifest.json (the canonical JSON
 * of the bound manifest, so its SHA-256 is the content hash) and SHA256SUMS (`sha256sum -c` format
 * over the four others), always in that order, deflated at level 9, mode 0644.
 *
 * Every entry carries the export's date at 12:00:00. ZIP timestamps are local wall-clock fields, so
 * the date is built with the local-time constructor from the export's UTC calendar date: the fields
 * written are then the same in every time zone (noon, because no zone skips noon for daylight saving).
 */
export async function buildPacketZip(document: PacketDocument): Promise<Uint8Array> {
  const contents: Array<[string, Uint8Array]> = [
    ["packet.pdf", await renderPacketPdf(document)],
    ["packet.json", encodeCanonicalJson(buildPacketJsonObject(document), true)],
    ["chain-of-custody.json", encodeCanonicalJson(buildChainOfCustodyObject(document), true)],
    ["manifest.json", new TextEncoder().encode(canonicalize(document.manifest))],
  ];
  const sums = contents.map(([name, bytes]) => `${sha256Hex(bytes)}  ${name}\n`).join("");
  contents.push(["SHA256SUMS", new TextEncoder().encode(sums)]);

  const mtime = entryTimestamp(document.export.created_at);
  const entries: Zippable = {};
  for (const [name, bytes] of contents) {
    entries[name] = [bytes, { level: DEFLATE_LEVEL, mtime, os: UNIX, attrs: FILE_MODE << 16 }];
  }
  return zipSync(entries);
}

function entryTimestamp(createdAt: string): Date {
  const utc = new Date(createdAt);
  if (Number.isNaN(utc.getTime())) throw new RangeError("export.created_at is not a timestamp");
  return new Date(utc.getUTCFullYear(), utc.getUTCMonth(), utc.getUTCDate(), 12, 0, 0);
}
