import { lookup } from "node:dns/promises";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. Injected in tests, so none ever asks a real DNS server. */
export type ResolveHostname = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts too), all addresses, in the order it gives them. */
export const resolveWithSystemResolver: ResolveHostname = (hostname) => lookup(hostname, { all: true, verbatim: true });
