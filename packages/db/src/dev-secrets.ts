import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ServiceSecrets {
  /** HMAC secret that signs API keys */
  keySigningSecret: string;
  /** 32-byte Ed25519 seed (hex) that signs events */
  eventSigningSeed: string;
  /** 32-byte key (hex) that encrypts webhook signing secrets at rest */
  webhookSecretKey: string;
}

/**
 * Development secrets: generated once and kept in the local data folder, so keys minted
 * yesterday still verify today. Live deployments pass real secrets through the environment.
 */
export function loadOrCreateDevSecrets(dataDir: string): { secrets: ServiceSecrets; created: boolean } {
  const file = join(dataDir, "dev-secrets.json");
  if (existsSync(file)) return { secrets: JSON.parse(readFileSync(file, "utf8")) as ServiceSecrets, created: false };
  mkdirSync(dataDir, { recursive: true });
  const secrets: ServiceSecrets = {
    keySigningSecret: randomBytes(32).toString("base64url"),
    eventSigningSeed: randomBytes(32).toString("hex"),
    webhookSecretKey: randomBytes(32).toString("hex"),
  };
  // Written whole to a private temporary file, then linked into place: link() refuses an existing
  // name, so exactly one process of a start creates the file, and nobody ever reads it half-written.
  const content = `${JSON.stringify(secrets, null, 2)}\n`;
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600, flag: "wx" });
  try {
    try {
      linkSync(temporary, file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A file system without hard links: exclusive create (a reader could then see it half-written).
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS") throw error;
      writeFileSync(file, content, { mode: 0o600, flag: "wx" });
    }
    return { secrets, created: true };
  } catch (error) {
    // Another process of the same start created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      return { secrets: JSON.parse(readFileSync(file, "utf8")) as ServiceSecrets, created: false };
    }
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}
