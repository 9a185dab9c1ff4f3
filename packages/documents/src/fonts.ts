import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * DejaVu Sans 2.37 (regular, bold, mono), vendored in ../fonts with its license, so a PDF looks the
 * same and carries the same bytes on any machine, whatever fonts it has installed. DejaVu covers
 * Latin, Greek, Cyrillic, Armenian, Georgian, Hebrew and Arabic letters, but not CJK or Indic
 * scripts: such characters render as empty boxes (a CJK font would add about 16 MB).
 */
export interface PacketFonts {
  regular: Buffer;
  bold: Buffer;
  mono: Buffer;
}

let loaded: PacketFonts | undefined;

export function loadPacketFonts(): PacketFonts {
  loaded ??= {
    regular: readFont("DejaVuSans.ttf"),
    bold: readFont("DejaVuSans-Bold.ttf"),
    mono: readFont("DejaVuSansMono.ttf"),
  };
  return loaded;
}

function readFont(file: string): Buffer {
  return readFileSync(fileURLToPath(new URL(`../fonts/${file}`, import.meta.url)));
}
