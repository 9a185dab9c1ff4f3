import { createHash } from "node:crypto";

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator, from PractRand): 128 bits of state,
 * fast in JS, passes PractRand to multiple terabytes. Seeded from sha256(seed, stream) so each
 * stream is independent and adding a stream never shifts another.
 */
export class Sfc32 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string, stream: string) {
    const digest = createHash("sha256").update(`${seed}\u0000${stream}`).digest();
    this.a = digest.readUInt32LE(0);
    this.b = digest.readUInt32LE(4);
    this.c = digest.readUInt32LE(8);
    this.d = digest.readUInt32LE(12) | 1;
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Index in [0, n) skewed towards 0 (a few very active addresses, many quiet ones). */
  skewed(n: number, power = 3): number {
    return Math.min(n - 1, Math.floor(n * this.next() ** power));
  }
}
