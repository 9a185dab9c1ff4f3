import type { Matter } from "@crs/contract";
import type { Actor, ServiceDeps } from "../context";
import { loadMatter } from "./load-matter";
import { presentMatter } from "./present-matter";

export async function retrieveMatter(deps: ServiceDeps, actor: Actor, matterId: string): Promise<Matter> {
  return presentMatter(await loadMatter(deps.db, actor, matterId));
}
