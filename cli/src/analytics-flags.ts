// The flags the analytics commands share: the scope (the profile's environment, or --all-envs for
// the whole organization) and a date range (UTC calendar days).
import { Flags } from '@oclif/core';

export const scopeFlags = {
  'all-envs': Flags.boolean({ description: 'the whole organization rather than the environment' }),
};

export const dateRangeFlags = {
  from: Flags.string({ description: 'first day, YYYY-MM-DD (UTC; the API\'s default when unset)' }),
  to: Flags.string({ description: 'last day, YYYY-MM-DD (UTC)' }),
};
