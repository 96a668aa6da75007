// Every public method of the SDK's classes, and every exported function, shows an example in its
// JSDoc (`@example`): what an editor shows a developer at the call.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, it } from 'vitest';

const src = import.meta.dirname;
// The files whose classes and functions the entries export (http.ts and uploads/ are internal).
const files = [
  'client.ts',
  'api-promise.ts',
  'node.ts',
  'errors.ts',
  'pagination.ts',
  'webhook-signature.ts',
  ...readdirSync(join(src, 'resources'))
    .filter((file) => !file.endsWith('.test.ts'))
    .map((file) => `resources/${file}`),
];
/** The promise protocol's own methods, documented by the language. */
const promiseProtocol = new Set(['then', 'catch', 'finally']);

function hasExample(node: ts.Node): boolean {
  return ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'example');
}

function isPublic(node: ts.MethodDeclaration): boolean {
  const flags = ts.getCombinedModifierFlags(node);
  return !(flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) && !ts.isPrivateIdentifier(node.name);
}

describe('the SDK docs', () => {
  it('have an @example on every public method and exported function', () => {
    const missing: string[] = [];
    for (const file of files) {
      const source = ts.createSourceFile(file, readFileSync(join(src, file), 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (ts.isClassDeclaration(node) && node.name) {
          for (const member of node.members) {
            if (
              ts.isMethodDeclaration(member) &&
              isPublic(member) &&
              !promiseProtocol.has(member.name.getText()) &&
              !hasExample(member)
            )
              missing.push(`${file}: ${node.name.text}.${member.name.getText()}`);
          }
        }
        if (
          ts.isFunctionDeclaration(node) &&
          node.name &&
          ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export &&
          !hasExample(node)
        ) {
          missing.push(`${file}: ${node.name.text}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    assert.deepEqual(missing, []);
  });
});
