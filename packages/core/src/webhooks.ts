import { createCipheriv, createDecipheriv, createHmac } from "node:crypto";
import ipaddr from "ipaddr.js";

// ---------------------------------------------------------------------------------------------
// Signing
// ---------------------------------------------------------------------------------------------

export const WEBHOOK_SIGNATURE_HEADER = "Svc-Signature";

/**
 * The `Svc-Signature` header value: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * The secret is the key as UTF-8 text, `whsec_` prefix included. Passing several secrets (a rotation in
 * progress) adds one `v1=` entry per secret; a receiver accepts the request if any of them matches.
 */
export function signWebhookPayload(
  secret: string | readonly string[],
  timestampSeconds: number,
  rawBody: string | Uint8Array,
): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError("the signature timestamp is a non-negative whole number of unix seconds");
  }
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (secrets.length === 0 || secrets.some((s) => s.length === 0)) {
    throw new RangeError("a webhook signature needs at least one non-empty secret");
  }
  const signatures = secrets.map((s) => `v1=${computeWebhookSignature(s, timestampSeconds, rawBody)}`);
  return [`t=${timestampSeconds}`, ...signatures].join(",");
}

function computeWebhookSignature(secret: string, timestampSeconds: number, rawBody: string | Uint8Array): string {
  // The body is hashed as the exact bytes sent; a string body is sent as UTF-8.
  return createHmac("sha256", secret).update(`${timestampSeconds}.`, "utf8").update(rawBody).digest("hex");
}

// ---------------------------------------------------------------------------------------------
// Retry schedule
// ---------------------------------------------------------------------------------------------

export interface WebhookRetrySchedule {
  /** Delay after the first failed attempt. */
  baseDelayMs: number;
  /** Each further failure multiplies the delay by this. */
  factor: number;
  /** No single delay is longer than this. */
  maxDelayMs: number;
  /** No attempt is made later than this long after the first attempt. */
  windowMs: number;
  /**
   * Jitter shortens a delay by up to this fraction (0.25: a nominal 4 minutes becomes 3 to 4 minutes),
   * so deliveries that failed together (a receiver outage) do not all retry in the same instant.
   * Jitter only ever shortens, so the cap and the window hold exactly.
   */
  jitterRatio: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** About a minute, doubling, at most 6 hours between attempts, for 72 hours after the first attempt. */
export const WEBHOOK_RETRY_SCHEDULE: WebhookRetrySchedule = Object.freeze({
  baseDelayMs: MINUTE_MS,
  factor: 2,
  maxDelayMs: 6 * HOUR_MS,
  windowMs: 72 * HOUR_MS,
  jitterRatio: 0.25,
});

export interface NextRetryInput {
  /** When the delivery's first attempt started. */
  firstAttemptAt: Date;
  /** Attempts made so far, the one that just failed included (1 after the first failure). */
  attemptsSoFar: number;
  /** When the failed attempt ended. */
  now: Date;
  /** A random number in [0, 1), drawn by the caller. */
  jitter: number;
}

/**
 * When to try a failed delivery again, or `null` when it is dead. The nominal delay after the n-th failure
 * is `base * factor^(n-1)`, capped, then shortened by jitter. A retry that would land after the window closes
 * is moved to the window's last instant, so a receiver that comes back late in the window still gets the
 * event; once that instant has passed, the delivery is dead.
 */
export function nextRetryAt(
  input: NextRetryInput,
  schedule: WebhookRetrySchedule = WEBHOOK_RETRY_SCHEDULE,
): Date | null {
  const { firstAttemptAt, attemptsSoFar, now, jitter } = input;
  if (!Number.isSafeInteger(attemptsSoFar) || attemptsSoFar < 1) {
    throw new RangeError("attemptsSoFar counts the attempts made, the failed one included: at least 1");
  }
  if (!(jitter >= 0 && jitter < 1)) throw new RangeError("jitter is a number in [0, 1)");
  const firstMs = firstAttemptAt.getTime();
  const nowMs = now.getTime();
  if (Number.isNaN(firstMs) || Number.isNaN(nowMs)) throw new RangeError("firstAttemptAt and now must be valid dates");
  // Two workers' clocks may disagree a little; a "now" before the first attempt counts as the first attempt.
  const fromMs = Math.max(nowMs, firstMs);

  const windowEndMs = firstMs + schedule.windowMs;
  if (fromMs >= windowEndMs) return null;

  const nominalDelayMs = Math.min(schedule.maxDelayMs, schedule.baseDelayMs * schedule.factor ** (attemptsSoFar - 1));
  const delayMs = Math.round(nominalDelayMs * (1 - schedule.jitterRatio * jitter));
  return new Date(Math.min(fromMs + delayMs, windowEndMs));
}

// ---------------------------------------------------------------------------------------------
// Event filter
// ---------------------------------------------------------------------------------------------

export const ALL_WEBHOOK_EVENTS = "*";

/** Former event names still accepted in `enabled_events` under the API versions that knew them. */
const ENABLED_EVENT_ALIASES: ReadonlyMap<string, { canonical: string; apiVersions: readonly string[] }> = new Map([
  ["judgment.intaken", { canonical: "judgment.created", apiVersions: ["2026-06-11"] }],
]);

function resolveEventAlias(name: string, apiVersion: string): string | null {
  const alias = ENABLED_EVENT_ALIASES.get(name);
  return alias?.apiVersions.includes(apiVersion) ? alias.canonical : null;
}

/**
 * Whether an endpoint with this filter receives an event of this type. An omitted filter or one holding
 * `"*"` receives everything. `apiVersion` is the endpoint's version: a former name listed in the filter
 * matches its successor only under the versions that accept the alias.
 */
export function matchesEnabledEvents(
  enabledEvents: readonly string[] | null | undefined,
  eventType: string,
  apiVersion: string,
): boolean {
  if (enabledEvents == null) return true;
  return enabledEvents.some(
    (name) => name === ALL_WEBHOOK_EVENTS || name === eventType || resolveEventAlias(name, apiVersion) === eventType,
  );
}

export type NormalizedEnabledEvents =
  | { ok: true; enabledEvents: string[] }
  | { ok: false; reason: "unknown_events"; unknown: string[] }
  | { ok: false; reason: "empty" };

/**
 * Validates an `enabled_events` input. Omitted means all (`["*"]`); a list holding `"*"` collapses to
 * `["*"]`; an empty list is refused (it could only mean "nothing", which is what disabling is for).
 * A former name accepted under `apiVersion` is stored as its current name, so matching never depends on
 * the version a key is moved to later. Duplicates are dropped, first occurrence kept. Unknown names are
 * all returned, in input order, so the API can list every one of them.
 */
export function normalizeEnabledEvents(
  input: readonly string[] | null | undefined,
  apiVersion: string,
  catalog: readonly string[],
): NormalizedEnabledEvents {
  if (input == null) return { ok: true, enabledEvents: [ALL_WEBHOOK_EVENTS] };
  if (input.length === 0) return { ok: false, reason: "empty" };
  const known = new Set(catalog);
  const unknown: string[] = [];
  const enabled: string[] = [];
  for (const name of input) {
    if (name === ALL_WEBHOOK_EVENTS) continue;
    const canonical = known.has(name) ? name : resolveEventAlias(name, apiVersion);
    if (canonical === null || !known.has(canonical)) {
      if (!unknown.includes(name)) unknown.push(name);
    } else if (!enabled.includes(canonical)) {
      enabled.push(canonical);
    }
  }
  if (unknown.length > 0) return { ok: false, reason: "unknown_events", unknown };
  if (input.includes(ALL_WEBHOOK_EVENTS)) return { ok: true, enabledEvents: [ALL_WEBHOOK_EVENTS] };
  return { ok: true, enabledEvents: enabled };
}

// ---------------------------------------------------------------------------------------------
// Signing secrets
// ---------------------------------------------------------------------------------------------

export const WEBHOOK_SECRET_PREFIX = "whsec_";
const WEBHOOK_SECRET_MIN_BYTES = 32;

/** `whsec_` followed by the random bytes in unpadded base64url (43 characters for 32 bytes). */
export function formatWebhookSecret(randomBytes: Uint8Array): string {
  if (randomBytes.length < WEBHOOK_SECRET_MIN_BYTES) {
    throw new RangeError(`a webhook secret needs at least ${WEBHOOK_SECRET_MIN_BYTES} random bytes`);
  }
  return `${WEBHOOK_SECRET_PREFIX}${Buffer.from(randomBytes).toString("base64url")}`;
}

const SECRET_BOX_VERSION = "v1";
const GCM_IV_BYTES = 12;
const GCM_TAG_BYTES = 16;
const AES_256_KEY_BYTES = 32;

export type WebhookSecretBoxFailure = "malformed" | "unsupported_version" | "authentication_failed";

export class WebhookSecretBoxError extends Error {
  constructor(
    readonly reason: WebhookSecretBoxFailure,
    message: string,
  ) {
    super(message);
    this.name = "WebhookSecretBoxError";
  }
}

export interface WebhookSecretBoxOptions {
  /**
   * Authenticated but not encrypted context, e.g. the endpoint id: a box copied onto another endpoint's
   * row then fails to open. The same value must be given to decrypt.
   */
  associatedData?: string;
}

function checkKey(key: Uint8Array): void {
  if (key.length !== AES_256_KEY_BYTES) throw new RangeError("the secret encryption key is 32 bytes (AES-256)");
}

/**
 * Encrypts a signing secret for storage with AES-256-GCM, as `v1.<iv>.<tag>.<ciphertext>` (base64url parts).
 * The IV must be 12 fresh random bytes for every call: reusing one under the same key breaks GCM.
 */
export function encryptWebhookSecret(
  secret: string,
  key: Uint8Array,
  iv: Uint8Array,
  options: WebhookSecretBoxOptions = {},
): string {
  checkKey(key);
  if (iv.length !== GCM_IV_BYTES) throw new RangeError("the IV is 12 bytes");
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: GCM_TAG_BYTES });
  if (options.associatedData !== undefined) cipher.setAAD(Buffer.from(options.associatedData, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => Buffer.from(part).toString("base64url"));
  return [SECRET_BOX_VERSION, ...parts].join(".");
}

/** Opens a box made by `encryptWebhookSecret`; throws `WebhookSecretBoxError` if it is malformed or was altered. */
export function decryptWebhookSecret(box: string, key: Uint8Array, options: WebhookSecretBoxOptions = {}): string {
  checkKey(key);
  const parts = box.split(".");
  if (parts.length !== 4) throw new WebhookSecretBoxError("malformed", "a secret box has four dot-separated parts");
  const [version, ivText, tagText, ciphertextText] = parts as [string, string, string, string];
  if (version !== SECRET_BOX_VERSION) {
    throw new WebhookSecretBoxError("unsupported_version", `unsupported secret box version "${version}"`);
  }
  const iv = decodeBase64Url(ivText);
  const tag = decodeBase64Url(tagText);
  const ciphertext = decodeBase64Url(ciphertextText);
  if (
    iv === null ||
    tag === null ||
    ciphertext === null ||
    iv.length !== GCM_IV_BYTES ||
    tag.length !== GCM_TAG_BYTES
  ) {
    throw new WebhookSecretBoxError("malformed", "a secret box part is not valid base64url of the expected length");
  }
  const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: GCM_TAG_BYTES });
  if (options.associatedData !== undefined) decipher.setAAD(Buffer.from(options.associatedData, "utf8"));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("utf8");
  } catch {
    throw new WebhookSecretBoxError(
      "authentication_failed",
      "the secret box does not open with this key (wrong key, wrong context, or altered)",
    );
  }
}

function decodeBase64Url(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const bytes = Buffer.from(text, "base64url");
  // Node ignores trailing bits; insisting on the canonical spelling makes every box have exactly one form.
  return bytes.toString("base64url") === text ? bytes : null;
}

// ---------------------------------------------------------------------------------------------
// Target addresses
// ---------------------------------------------------------------------------------------------

export type AddressClass =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "link_local"
  | "cloud_metadata"
  | "carrier_grade_nat"
  | "unique_local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "reserved";

export interface AddressClassification {
  /** The address in canonical form (dotted quad, or RFC 5952 IPv6). */
  address: string;
  family: 4 | 6;
  class: AddressClass;
  /** For IPv6 forms that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4): that address. */
  embeddedIpv4?: string;
}

type Range = readonly [cidr: string, addressClass: AddressClass];

// First match wins, so the narrower entries come first.
const IPV4_RANGES: readonly Range[] = [
  ["169.254.169.254/32", "cloud_metadata"], // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
  ["100.100.100.200/32", "cloud_metadata"], // Alibaba Cloud
  ["192.0.0.192/32", "cloud_metadata"], // Oracle Cloud (legacy)
  ["0.0.0.0/8", "unspecified"], // "this network"; 0.0.0.0 itself reaches the local host on many stacks
  ["10.0.0.0/8", "private"],
  ["172.16.0.0/12", "private"],
  ["192.168.0.0/16", "private"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link_local"],
  ["100.64.0.0/10", "carrier_grade_nat"],
  ["192.0.0.0/24", "reserved"], // IETF protocol assignments
  ["192.0.2.0/24", "documentation"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["198.18.0.0/15", "benchmarking"],
  ["192.88.99.0/24", "reserved"], // former 6to4 relay anycast
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
];

const IPV6_RANGES: readonly Range[] = [
  ["fd00:ec2::254/128", "cloud_metadata"], // AWS instance metadata over IPv6
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["64:ff9b:1::/48", "reserved"], // local-use NAT64
  ["100::/64", "reserved"], // discard-only
  ["2001:2::/48", "benchmarking"],
  ["2001:db8::/32", "documentation"],
  ["3fff::/20", "documentation"],
  ["2001::/23", "reserved"], // IETF protocol assignments: Teredo, ORCHID and others
  ["fc00::/7", "unique_local"],
  ["fe80::/10", "link_local"],
  ["ff00::/8", "multicast"],
];

// IPv6 prefixes whose last 32 bits (or, for 6to4, bits 16..47) are an IPv4 address.
const IPV4_MAPPED = ipaddr.parseCIDR("::ffff:0:0/96");
const IPV4_TRANSLATED = ipaddr.parseCIDR("::ffff:0:0:0/96");
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");
const SIX_TO_FOUR = ipaddr.parseCIDR("2002::/16");
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

const parsedRanges = <T extends ipaddr.IPv4 | ipaddr.IPv6>(ranges: readonly Range[]) =>
  ranges.map(([cidr, addressClass]) => ({ cidr: ipaddr.parseCIDR(cidr) as [T, number], addressClass }));
const IPV4_TABLE = parsedRanges<ipaddr.IPv4>(IPV4_RANGES);
const IPV6_TABLE = parsedRanges<ipaddr.IPv6>(IPV6_RANGES);

function classifyIpv4(address: ipaddr.IPv4): AddressClassification {
  const match = IPV4_TABLE.find(({ cidr }) => address.match(cidr));
  return { address: address.toString(), family: 4, class: match?.addressClass ?? "public" };
}

function ipv4FromBytes(bytes: readonly number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(0, 4));
}

function classifyIpv6(address: ipaddr.IPv6): AddressClassification {
  const canonical = address.toString();
  // A scope id ("%eth0") only means something on the local link.
  if (address.zoneId) return { address: canonical, family: 6, class: "link_local" };
  const listed = IPV6_TABLE.find(({ cidr }) => address.match(cidr));
  if (listed) return { address: canonical, family: 6, class: listed.addressClass };

  const bytes = address.toByteArray();
  const embedded = (ipv4: ipaddr.IPv4, whenEmbeddedIsPublic: AddressClass): AddressClassification => {
    const inner = classifyIpv4(ipv4);
    return {
      address: canonical,
      family: 6,
      class: inner.class === "public" ? whenEmbeddedIsPublic : inner.class,
      embeddedIpv4: inner.address,
    };
  };
  // Mapped and translated forms reach the IPv4 address itself; NAT64 reaches it through a translator.
  if (address.match(IPV4_MAPPED) || address.match(IPV4_TRANSLATED) || address.match(NAT64_WELL_KNOWN)) {
    return embedded(ipv4FromBytes(bytes.slice(12)), "public");
  }
  // IPv4-compatible addresses are deprecated and never routed, whatever they embed.
  if (address.match(IPV4_COMPATIBLE)) return embedded(ipv4FromBytes(bytes.slice(12)), "reserved");
  if (address.match(SIX_TO_FOUR)) return embedded(ipv4FromBytes(bytes.slice(2, 6)), "public");
  // Everything outside global unicast is unassigned or special-purpose.
  if (!address.match(GLOBAL_UNICAST)) return { address: canonical, family: 6, class: "reserved" };
  return { address: canonical, family: 6, class: "public" };
}

/**
 * ipaddr.js reads `::a.b.c.d` (IPv4-compatible, `::hhhh:hhhh`) as if it were `::ffff:a.b.c.d` (IPv4-mapped),
 * a different address. Spell it in hex first so it is judged, and connected to, as what it is.
 */
function rewriteIpv4CompatibleSpelling(text: string): string | null {
  const match = /^::(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(text);
  if (!match) return text;
  if (!ipaddr.IPv4.isValidFourPartDecimal(match[1]!)) return null;
  const [a, b, c, d] = ipaddr.IPv4.parse(match[1]!).octets as [number, number, number, number];
  return `::${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * Classifies an IP address, or returns null when the text is not one. IPv4 is read the way the system
 * resolver reads it (`0x7f.1`, `2130706433` and `0177.0.0.1` are all 127.0.0.1), so an odd spelling is
 * judged by the address it denotes. IPv6 may be written with or without brackets.
 */
export function classifyAddress(ip: string): AddressClassification | null {
  const unbracketed = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const text = rewriteIpv4CompatibleSpelling(unbracketed);
  if (text === null || !ipaddr.isValid(text)) return null;
  const address = ipaddr.parse(text);
  return address.kind() === "ipv4" ? classifyIpv4(address as ipaddr.IPv4) : classifyIpv6(address as ipaddr.IPv6);
}

/** True only for an address reachable on the public internet: no private, local, special-purpose or metadata range. */
export function isPublicAddress(ip: string): boolean {
  return classifyAddress(ip)?.class === "public";
}

// ---------------------------------------------------------------------------------------------
// Target rules
// ---------------------------------------------------------------------------------------------

export type WebhookEnvironment = "sandbox" | "live";

export interface WebhookTargetPolicy {
  /** URL schemes accepted, with the colon, as `URL.protocol` spells them. */
  protocols: readonly ("http:" | "https:")[];
  /** Address classes a target may be (an IP literal in the URL, or every address its name resolves to). */
  addressClasses: readonly AddressClass[];
  /** Refuse names that can only be local: `localhost`, `*.local`, `*.internal`, single-label names. */
  refuseLocalNames: boolean;
}

export const WEBHOOK_TARGET_POLICIES: Readonly<Record<WebhookEnvironment, WebhookTargetPolicy>> = {
  live: { protocols: ["https:"], addressClasses: ["public"], refuseLocalNames: true },
  // Sandbox keeps loopback and private networks open so a receiver on a developer's machine or LAN works;
  // the metadata service, link-local and non-unicast addresses stay closed there too.
  sandbox: {
    protocols: ["http:", "https:"],
    addressClasses: ["public", "loopback", "private", "unique_local", "carrier_grade_nat"],
    refuseLocalNames: false,
  },
};

export type WebhookTargetRefusalReason =
  | "invalid_url"
  | "protocol_not_allowed"
  | "credentials_in_url"
  | "local_hostname"
  | "address_not_allowed"
  | "no_addresses";

export interface WebhookTargetRefusal {
  ok: false;
  reason: WebhookTargetRefusalReason;
  message: string;
  /** For `address_not_allowed`: the refused address and its class. */
  address?: string;
  addressClass?: AddressClass;
}

export interface WebhookTarget {
  ok: true;
  /** The URL as WHATWG parsing normalizes it (e.g. `http://0x7f.1/` becomes `http://127.0.0.1/`). */
  url: string;
  protocol: "http:" | "https:";
  /** Host name or IP address, without IPv6 brackets, lowercase. */
  hostname: string;
  /** The `Host` header value: hostname (bracketed for IPv6) plus a non-default port. */
  host: string;
  port: number;
  /** Path and query string. */
  path: string;
  /** When the URL names an IP address rather than a host name: that address, canonical. */
  ipAddress: string | null;
}

// Reserved for local use: RFC 6761 (localhost), RFC 6762 (local), RFC 8375 (home.arpa), ICANN (internal).
const LOCAL_NAME_SUFFIXES = [".localhost", ".local", ".localdomain", ".internal", ".home.arpa"];

function refuse(reason: WebhookTargetRefusalReason, message: string, extra: Partial<WebhookTargetRefusal> = {}) {
  return { ok: false as const, reason, message, ...extra };
}

/** Checks one address against a policy. */
export function checkTargetAddress(
  ip: string,
  policy: WebhookTargetPolicy,
): { ok: true; address: string; family: 4 | 6 } | WebhookTargetRefusal {
  const classified = classifyAddress(ip);
  if (classified === null) return refuse("address_not_allowed", `"${ip}" is not an IP address`, { address: ip });
  if (!policy.addressClasses.includes(classified.class)) {
    const embedded = classified.embeddedIpv4 ? ` (it carries the IPv4 address ${classified.embeddedIpv4})` : "";
    return refuse(
      "address_not_allowed",
      `webhook target address ${classified.address} is ${classified.class.replaceAll("_", " ")}${embedded}`,
      { address: classified.address, addressClass: classified.class },
    );
  }
  return { ok: true, address: classified.address, family: classified.family };
}

/**
 * Checks every address a host name resolved to. One refused address refuses the whole answer: a name
 * that mixes public and private addresses is how DNS rebinding reaches internal services.
 */
export function checkResolvedAddresses(
  addresses: readonly string[],
  policy: WebhookTargetPolicy,
): { ok: true; addresses: { address: string; family: 4 | 6 }[] } | WebhookTargetRefusal {
  if (addresses.length === 0) return refuse("no_addresses", "the webhook target's host name resolved to no address");
  const vetted: { address: string; family: 4 | 6 }[] = [];
  for (const ip of addresses) {
    const checked = checkTargetAddress(ip, policy);
    if (!checked.ok) return checked;
    vetted.push({ address: checked.address, family: checked.family });
  }
  return { ok: true, addresses: vetted };
}

/**
 * The URL rules for a webhook target, without DNS: the scheme the environment allows, no user name or
 * password, no host that can only be local (when the policy says so), and an IP literal host only in the
 * address classes the policy allows. A host name's addresses are checked again when a delivery resolves it.
 */
export function checkWebhookTarget(
  url: string,
  environment: WebhookEnvironment,
  policy: WebhookTargetPolicy = WEBHOOK_TARGET_POLICIES[environment],
): WebhookTarget | WebhookTargetRefusal {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse("invalid_url", "the webhook target is not an absolute URL");
  }
  const protocol = parsed.protocol;
  if (protocol !== "http:" && protocol !== "https:") {
    return refuse("protocol_not_allowed", `the webhook target must be an http or https URL, not ${protocol}`);
  }
  if (!policy.protocols.includes(protocol)) {
    const allowed = policy.protocols.map((p) => p.slice(0, -1)).join(" or ");
    return refuse("protocol_not_allowed", `${environment} webhook targets must use ${allowed}`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return refuse("credentials_in_url", "the webhook target URL must not carry a user name or password");
  }
  const hostname = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
  // After WHATWG parsing a host is a domain, a dotted quad (every IPv4 spelling is rewritten to one), or
  // a bracketed IPv6 address; a domain never parses as an IP address.
  const isIpLiteral = parsed.hostname.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(hostname);
  let ipAddress: string | null = null;
  if (isIpLiteral) {
    const checked = checkTargetAddress(hostname, policy);
    if (!checked.ok) return checked;
    ipAddress = checked.address;
  } else if (policy.refuseLocalNames) {
    const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
    if (name === "localhost" || !name.includes(".") || LOCAL_NAME_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
      return refuse("local_hostname", `the webhook target host "${hostname}" is not a public name`);
    }
  }
  return {
    ok: true,
    url: parsed.href,
    protocol,
    hostname,
    host: parsed.host,
    port: parsed.port === "" ? (protocol === "https:" ? 443 : 80) : Number(parsed.port),
    path: `${parsed.pathname}${parsed.search}`,
    ipAddress,
  };
}

// ---------------------------------------------------------------------------------------------
// Endpoint and delivery states
// ---------------------------------------------------------------------------------------------

export const WEBHOOK_ENDPOINT_STATUSES = ["enabled", "disabled"] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/**
 * `queued` → `delivering` (a worker holds it under a lease) → `delivered` (2xx) | `queued` (a retry is
 * scheduled) | `dead` (the retry window closed, or the endpoint was disabled or deleted).
 */
export const WEBHOOK_DELIVERY_STATUSES = ["queued", "delivering", "delivered", "dead"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * Endpoints an organization may have in one environment. Every event fans out to the matching ones inside
 * the transaction of the write that appended it, so the bound keeps that work small.
 */
export const MAX_WEBHOOK_ENDPOINTS = 16;
