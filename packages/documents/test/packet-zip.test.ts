import { createHash } from "node:crypto";
import { computeExportHash } from "@crs/core";
import { describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { buildPacketZip, PACKET_ZIP_ENTRIES } from "../src/packet-zip";
import { buildFixtureDocument } from "./fixture";

interface ReadEntry {
  name: string;
  bytes: Buffer;
  unixMode: number;
  dosDate: number;
  dosTime: number;
}

/** Reads every entry with yauzl, an independent ZIP reader (the writer is fflate). */
function readZip(bytes: Uint8Array): Promise<ReadEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(bytes), { lazyEntries: true, strictFileNames: true }, (openError, zip) => {
      if (openError || !zip) return reject(openError);
      const entries: ReadEntry[] = [];
      zip.on("error", reject);
      zip.on("end", () => resolve(entries));
      zip.on("entry", (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("error", reject);
          stream.on("end", () => {
            entries.push({
              name: entry.fileName,
              bytes: Buffer.concat(chunks),
              unixMode: entry.externalFileAttributes >>> 16,
              dosDate: entry.lastModFileDate,
              dosTime: entry.lastModFileTime,
            });
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

describe("buildPacketZip", () => {
  it("holds the five entries in a fixed order, each mode 0644, dated the export day at noon", async () => {
    const entries = await readZip(await buildPacketZip(buildFixtureDocument({ format: "zip" })));
    expect(entries.map((entry) => entry.name)).toEqual([...PACKET_ZIP_ENTRIES]);
    // Export created 2026-07-05: DOS date = (2026 - 1980) << 9 | 7 << 5 | 5; time 12:00:00 = 12 << 11.
    for (const entry of entries) {
      expect(entry.unixMode).toBe(0o100644);
      expect(entry.dosDate).toBe(((2026 - 1980) << 9) | (7 << 5) | 5);
      expect(entry.dosTime).toBe(12 << 11);
    }
    expect(entries[0]!.bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  });

  it("lists every other entry in SHA256SUMS with its true sha256, in sha256sum format", async () => {
    const entries = await readZip(await buildPacketZip(buildFixtureDocument({ format: "zip" })));
    const sums = entries.find((entry) => entry.name === "SHA256SUMS")!.bytes.toString("utf8");
    const lines = sums.split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
      expect(match).not.toBeNull();
      const entry = entries.find((candidate) => candidate.name === match![2]);
      expect(entry).toBeDefined();
      expect(sha256(entry!.bytes)).toBe(match![1]);
    }
    expect(lines.map((line) => line.slice(66))).toEqual(PACKET_ZIP_ENTRIES.filter((name) => name !== "SHA256SUMS"));
  });

  it("ships manifest.json whose sha256 is the content hash, and packet.json carrying the same manifest", async () => {
    const document = buildFixtureDocument({ format: "zip" });
    const entries = await readZip(await buildPacketZip(document));
    const manifest = entries.find((entry) => entry.name === "manifest.json")!.bytes;
    expect(sha256(manifest)).toBe(document.packet.content_hash);
    const packet = JSON.parse(entries.find((entry) => entry.name === "packet.json")!.bytes.toString("utf8"));
    expect(packet.manifest).toEqual(JSON.parse(manifest.toString("utf8")));
    expect(packet.integrity.content_hash).toBe(document.packet.content_hash);
  });

  it("gives an export hash a recipient can recompute from the file and the published fields", async () => {
    const document = buildFixtureDocument({ format: "zip" });
    const bytes = await buildPacketZip(document);
    const artifact = sha256(bytes);
    const published = {
      export_id: document.export.export_id,
      format: "zip" as const,
      packet_content_hash: document.packet.content_hash,
      artifact_sha256: artifact,
      created_at: document.export.created_at,
    };
    const byHand =
      `{"artifact_sha256":"${artifact}","created_at":"${published.created_at}","export_id":"${published.export_id}",` +
      `"format":"zip","packet_content_hash":"${published.packet_content_hash}"}`;
    expect(computeExportHash(published)).toBe(sha256(byHand));
  });
});
