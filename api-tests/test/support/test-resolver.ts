import type { ResolvedAddress, ResolveHostname } from "@crs/services";

/**
 * Host names the test resolver knows. Nothing here is ever connected to: api-tests run no worker, and
 * endpoint creation only resolves names. No test asks a real DNS server.
 */
export const TEST_HOSTS = {
  /** a public address: accepted for live endpoints */
  public: "hooks.example.com",
  /** a private (RFC 1918) address */
  private: "intranet.example.com",
  /** one public and one private address: DNS rebinding's usual shape */
  mixed: "mixed.example.com",
} as const;

const ADDRESSES: Record<string, string[]> = {
  [TEST_HOSTS.public]: ["93.184.216.34"],
  [TEST_HOSTS.private]: ["10.0.0.7"],
  [TEST_HOSTS.mixed]: ["93.184.216.34", "192.168.1.5"],
  localhost: ["127.0.0.1"],
};

/** Answers from the table above; any other name does not resolve. */
export const testResolver: ResolveHostname = async (hostname) => {
  const addresses = ADDRESSES[hostname.toLowerCase()];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  return addresses.map((address): ResolvedAddress => ({ address, family: address.includes(":") ? 6 : 4 }));
};
