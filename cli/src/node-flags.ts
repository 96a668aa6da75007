import { Flags } from '@oclif/core';

/** The operators' commands authenticate with the control plane's operator token, not an API key. */
export const operatorFlags = {
  'operator-token': Flags.string({
    description: "the API's OPERATOR_TOKEN (env KINO_OPERATOR_TOKEN; the dev stack's is in .kino/dev.json)",
    helpGroup: 'CONNECTION',
  }),
};
