import ipaddr from "ipaddr.js";
import { addressComparisonKey } from "./parties";

/**
 * Network attribution (2026-06-11): signals that tie a wallet to network data obtained under legal
 * process (an exchange's login IP for the account behind a wallet, a device fingerprint, …). The
 * service keeps only a redacted form of the value, never a raw IP address, and no signal is proof on
 * its own: a signal alone is `L0`; only independent corroboration raises it, to at most `L3`, and
 * every correlation awaits a person's review.
 */

/** Signals whose value is an IP address (a legal process is required for these). */
export const IP_SIGNAL_TYPES = ["exchange_login_ip", "exchange_withdrawal_ip", "transaction_broadcast_ip"] as const;

/** Every signal type: the IP ones, then signals of a device or an account at a service. */
export const NETWORK_SIGNAL_TYPES = [...IP_SIGNAL_TYPES, "device_fingerprint", "account_identifier"] as const;
export type NetworkSignalType = (typeof NETWORK_SIGNAL_TYPES)[number];

export function isIpSignalType(type: NetworkSignalType): boolean {
  return (IP_SIGNAL_TYPES as readonly string[]).includes(type);
}

/** `L0` (a signal alone) to `L3` (corroborated by another source, legal process and signal type). */
export const CONFIDENCE_LEVELS = ["L0", "L1", "L2", "L3"] as const;
export type ConfidenceLevel = (typeof CONFIDENCE_LEVELS)[number];

// Four dot-separated decimal groups not run into other digits: leading zeros (`203.000.113.007`) and a
// following port (`203.0.113.7:443`) still read as an address; `203.0.113.x` does not match.
const IPV4_CANDIDATE = /(?<![0-9])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![0-9])/g;
// Runs of the characters an IPv6 address is written with; brackets, `/prefix`, `%zone` end a run.
const IPV6_RUN = /[0-9A-Fa-f:.]+/g;
const MASK_CHARACTER = /^[xX*]/;

/**
 * The first raw IPv4 or IPv6 address written in `text`, or null. Reads every form an address is
 * written in inside free text: dotted IPv4 (leading zeros, with a port), IPv6 compressed or full, in
 * brackets with a port, with a zone or prefix length, IPv4-mapped (`::ffff:203.0.113.7`). Masked forms
 * are not addresses: `203.0.113.x`, `203.0.x.x`, `2001:db8:x:x:x:x:x:x`, `2001:db8::x`. Each candidate
 * is confirmed by ipaddr.js.
 */
export function findRawIpAddress(text: string): string | null {
  for (const match of text.matchAll(IPV4_CANDIDATE)) {
    const octets = match.slice(1, 5).map((octet) => Number.parseInt(octet ?? "", 10));
    if (ipaddr.IPv4.isValidFourPartDecimal(octets.join("."))) return match[0];
  }
  for (const match of text.matchAll(IPV6_RUN)) {
    const run = match[0];
    if ((run.match(/:/g)?.length ?? 0) < 2 || !/[0-9A-Fa-f]/.test(run)) continue;
    const next = text.slice((match.index ?? 0) + run.length);
    // `2001:db8::x`: whole groups replaced by a mask character, a prefix and not an address.
    if (run.endsWith(":") && MASK_CHARACTER.test(next)) continue;
    const trimmed = run.replace(/\.+$/, "");
    const candidates = [trimmed, trimmed.replace(/(?<!:):$/, ""), trimmed.replace(/^:(?!:)/, "")];
    const found = candidates.find((candidate) => /[0-9A-Fa-f]/.test(candidate) && ipaddr.IPv6.isValid(candidate));
    if (found !== undefined) return found;
  }
  return null;
}

/** How sources and legal processes compare: case and spacing ignored. */
function textKey(value: string): string {
  return value.trim().replace(/\s+/g, " ").toLowerCase();
}

/** A recorded signal, as the correlation rule reads it. */
export interface CorrelationSignal {
  id: string;
  walletAddress: string;
  signalType: NetworkSignalType;
  source: string;
  legalProcessId: string | null;
}

export interface SignalCorrelation {
  /** the wallet address the signal points at, as recorded */
  subject: string;
  signal_id: string;
  confidence_level: ConfidenceLevel;
  explanation: string;
  /** always true: a network signal is never standalone proof */
  review_required: true;
  /** the signals, from other sources, that corroborate this one */
  corroborating_signal_ids: string[];
}

function describeSignal(signal: CorrelationSignal): string {
  const process = signal.legalProcessId === null ? "no legal process" : `legal process '${signal.legalProcessId}'`;
  return `${signal.id} (${signal.signalType} from '${signal.source}', ${process})`;
}

/**
 * The confidence of one signal among the signals weighed with it. A signal corroborates another only
 * when it points at the same wallet and comes from a different source (the same source saying it
 * twice is one observation). With no such signal: `L0`. With one or more: `L1`, plus one level when a
 * corroborating signal was obtained under a different legal process, plus one when one is of a
 * different signal type: at most `L3`.
 */
export function correlateSignal(signal: CorrelationSignal, weighed: readonly CorrelationSignal[]): SignalCorrelation {
  const wallet = addressComparisonKey(signal.walletAddress);
  const sameWallet = weighed.filter(
    (other) => other.id !== signal.id && addressComparisonKey(other.walletAddress) === wallet,
  );
  const corroborating = sameWallet.filter((other) => textKey(other.source) !== textKey(signal.source));
  const sameSource = sameWallet.filter((other) => textKey(other.source) === textKey(signal.source));
  const ownProcess = signal.legalProcessId === null ? null : textKey(signal.legalProcessId);
  const otherProcess = corroborating.some(
    (other) => other.legalProcessId !== null && textKey(other.legalProcessId) !== ownProcess,
  );
  const otherType = corroborating.some((other) => other.signalType !== signal.signalType);
  const level = corroborating.length === 0 ? 0 : 1 + (otherProcess ? 1 : 0) + (otherType ? 1 : 0);
  const confidence = CONFIDENCE_LEVELS[Math.min(level, 3)] as ConfidenceLevel;

  const parts = [`Signal ${describeSignal(signal)} points at wallet ${signal.walletAddress}.`];
  if (corroborating.length === 0) {
    parts.push("No signal from another source points at this wallet: a signal alone is L0.");
  } else {
    parts.push(
      `Corroborated by ${corroborating.length} signal${corroborating.length === 1 ? "" : "s"} from another source: ${corroborating.map(describeSignal).join("; ")}.`,
    );
    const reasons = ["another source (L1)"];
    if (otherProcess) reasons.push("another legal process (+1)");
    if (otherType) reasons.push("another signal type (+1)");
    parts.push(`Corroboration by ${reasons.join(", ")}: ${confidence}.`);
  }
  if (sameSource.length > 0) {
    parts.push(
      `${sameSource.map((other) => other.id).join(", ")} from the same source ${sameSource.length === 1 ? "does" : "do"} not corroborate it.`,
    );
  }
  parts.push("A network signal is never standalone proof: review required.");
  return {
    subject: signal.walletAddress,
    signal_id: signal.id,
    confidence_level: confidence,
    explanation: parts.join(" "),
    review_required: true,
    corroborating_signal_ids: corroborating.map((other) => other.id),
  };
}

/** One correlation per signal, in the order given, each weighed against all the others. */
export function correlateSignals(signals: readonly CorrelationSignal[]): SignalCorrelation[] {
  return signals.map((signal) => correlateSignal(signal, signals));
}
