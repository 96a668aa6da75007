// Share links: the limits of their options. Their paths are in delivery-paths.ts.
/** Limits of `POST /{orgID}/videos/{publicID}/share` (docs/decisions/delivery.md#share-links). */
export const shareLinkLimits = {
  defaultExpirationHours: 168,
  maxExpirationHours: 8760,
  maxViews: 1_000_000,
};
