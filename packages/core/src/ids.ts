/** Every id prefix the service issues, from one table. */
export const ID_PREFIXES = {
  organization: "org",
  apiKey: "key",
  request: "req",
  matter: "matter",
  party: "party",
  judgment: "judgment",
  deadline: "dl",
  packet: "pkt",
  packetExport: "pex",
  recoveryEvent: "rcv",
  remittanceEvent: "rem",
  waterfall: "wf",
  job: "job",
  assetMap: "amap",
  webhookEndpoint: "we",
  webhookDelivery: "whd",
  event: "evt",
  /** a party's name, wallet or identifier found on a sanctions list */
  sanctionsHit: "hit",
  /** a 2026-06-11 action (operator task) on a matter */
  action: "act",
  /** a network attribution signal (2026-06-11): an observation tying a wallet to network data, kept redacted */
  networkAttribution: "na",
  /** a debtor graph (2026-06-11): computed on request and not stored; its id names that answer */
  debtorGraph: "graph",
  /** a 2026-06-11 transaction timeline: an answer, not a stored record */
  timeline: "tl",
  /** 2026-06-11 monitoring: a watchlist of addresses, and an alert a sweep raised */
  watchlist: "wl",
  alert: "alert",
  /** one run of the 2026-06-11 sanctions screen: the id its hits carry */
  sanctionsScreen: "sanc",
  /** a 2026-06-11 claw campaign: a matter's enforcement campaign against one of its judgments */
  clawCampaign: "camp",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
/** The characters of an id body, in order of value (lowercase Crockford base32). */
export const ID_ALPHABET = CROCKFORD;
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;
export const RANDOM_BYTES_PER_ID = 10;

/**
 * A ULID body in lowercase Crockford base32: 48 bits of milliseconds then 80 random bits,
 * so ids of one prefix sort by creation time (lexicographic order = time order).
 */
export function formatId(prefix: IdPrefix, timeMs: number, random: Uint8Array): string {
  if (!Number.isInteger(timeMs) || timeMs < 0 || timeMs > 2 ** 48 - 1) {
    throw new RangeError(`timeMs out of range: ${timeMs}`);
  }
  if (random.length !== RANDOM_BYTES_PER_ID) {
    throw new RangeError(`random must be ${RANDOM_BYTES_PER_ID} bytes`);
  }
  let time = "";
  let t = timeMs;
  for (let i = 0; i < TIME_CHARS; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return `${prefix}_${time}${base32Of40Bits(random, 0)}${base32Of40Bits(random, 5)}`;
}

/** Five bytes from `start`, big-endian, as 8 characters: 40 bits stay exact in a double, no bigint needed. */
function base32Of40Bits(bytes: Uint8Array, start: number): string {
  let value = 0;
  for (let i = start; i < start + 5; i++) value = value * 256 + bytes[i]!;
  let text = "";
  for (let i = 0; i < RANDOM_CHARS / 2; i++) {
    text = CROCKFORD[value % 32] + text;
    value = Math.floor(value / 32);
  }
  return text;
}

const BODY = new RegExp(`^[${CROCKFORD}]{${TIME_CHARS + RANDOM_CHARS}}$`);

/** True when `id` is a well-formed id of the given prefix. A wrong prefix is simply an unknown id. */
export function isIdOf(prefix: IdPrefix, id: string): boolean {
  const underscore = id.lastIndexOf("_");
  return id.slice(0, underscore) === prefix && BODY.test(id.slice(underscore + 1));
}

/** The creation time encoded in an id, in milliseconds. */
export function idTimestamp(id: string): number {
  const body = id.slice(id.lastIndexOf("_") + 1, id.lastIndexOf("_") + 1 + TIME_CHARS);
  let t = 0;
  for (const ch of body) t = t * 32 + CROCKFORD.indexOf(ch);
  return t;
}
