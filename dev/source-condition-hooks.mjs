// Module resolution hooks (node:module register) for running Kino from its sources: every @kino/*
// package exports its TypeScript sources under the "kino-source" condition and its compiled dist/
// otherwise; adding the condition here makes imports of @kino/* load src/.
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, 'kino-source'] });
}
