import { notFound } from "@crs/contract";
import type { ReadContext } from "../context";
import { postgresArtifactStore } from "./artifact-store";
import { loadPacketExport } from "./retrieve-packet-export";

/**
 * The bytes behind `download_url` (`<export_id>.<format>`): only for a key of the export's own
 * organization and environment; anyone else, and a wrong extension, gets 404.
 */
export async function downloadPacketExport(
  read: ReadContext,
  file: string,
): Promise<{ bytes: Uint8Array; contentType: string; fileName: string; sha256: string }> {
  const match = /^([a-z]+_[0-9a-z]{26})\.(pdf|zip|json)$/.exec(file);
  if (!match) throw notFound("export", file);
  const [, exportId = "", extension] = match;
  const row = await loadPacketExport(read.db, read.actor, exportId);
  if (row.format !== extension) throw notFound("export", file);
  const store = read.artifactStore ?? postgresArtifactStore;
  const artifact = await store.get(read.db, read.actor, exportId);
  if (!artifact) throw new Error(`export ${exportId} has no stored artifact`);
  if (artifact.sha256 !== row.artifactSha256)
    throw new Error(`export ${exportId}: stored artifact does not match its record`);
  return { bytes: artifact.bytes, contentType: row.contentType, fileName: file, sha256: artifact.sha256 };
}
