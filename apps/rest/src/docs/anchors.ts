/** Scalar's URL hash for a tag of the reference: `tag/<tag slug>`. */
export function tagHash(tag: string): string {
  const slug = tag
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `tag/${slug}`;
}

/** Scalar's URL hash for an operation: `tag/<tag slug>/<METHOD><path>`. */
export function operationHash(tag: string, method: string, path: string): string {
  return `${tagHash(tag)}/${method.toUpperCase()}${path}`;
}
