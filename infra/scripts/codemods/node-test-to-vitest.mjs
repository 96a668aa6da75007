// Converts test code from node:test to vitest, in place. Re-runnable: a file without a node:test import
// is left as it is, so running it twice changes nothing. It stops with an error (naming file, line
// and construct) on any node:test construct it does not know, rather than guess.
//
// Usage: node infra/scripts/codemods/node-test-to-vitest.mjs [--check] [file ...]
// (default: every .ts/.js file of the repository outside node_modules, dot-directories and this
// directory; --check writes nothing and exits 1 when a file would change)
//
// What changes (assertions from node:assert are kept as they are; vitest runs them unchanged):
// - imports: before -> beforeAll, after -> afterAll; describe, it, test, suite, beforeEach,
//   afterEach keep their names; mock -> vi.
// - hooks: before(fn, { timeout }) -> beforeAll(fn, timeout).
// - options: test/it/describe(name, { timeout }, fn) stay (vitest takes the same options object);
//   { concurrency: n > 1 | true } -> { concurrent: true }, { concurrency: 1 | false } is dropped
//   (vitest runs a file's tests one after another by default, as node:test does).
// - the test context: t.after(fn) -> t.onTestFinished(fn), t.name -> t.task.name, t.mock.fn -> vi.fn;
//   t.skip() and t.signal are the same in vitest.
// - mocks (mock, or test.mock): mock.fn -> vi.fn, mock.method(o, m[, impl]) -> vi.spyOn(o, m)[.mockImplementation(impl)],
//   mock.timers.enable({ apis, now }) -> vi.useFakeTimers({ toFake, now }), reset -> useRealTimers,
//   tick -> advanceTimersByTime, runAll -> runAllTimers, setTime -> setSystemTime,
//   mock.restoreAll()/reset() -> vi.restoreAllMocks(); on a mock function: .mock.callCount() ->
//   .mock.calls.length, .mock.calls[i].arguments -> .mock.calls[i].
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));

const RENAMED = { before: 'beforeAll', after: 'afterAll', mock: 'vi' };
const KEPT = new Set(['describe', 'it', 'test', 'suite', 'beforeEach', 'afterEach']);
const TEST_FUNCTIONS = new Set(['it', 'test']);
const SUITE_FUNCTIONS = new Set(['describe', 'suite']);
const HOOKS = new Set(['before', 'after', 'beforeEach', 'afterEach']);
const MODIFIERS = new Set(['skip', 'only', 'todo']);
const TYPES = { TestContext: 'TestContext' };
const TIMER_CALLS = { reset: 'useRealTimers', tick: 'advanceTimersByTime', runAll: 'runAllTimers', setTime: 'setSystemTime' };

export class UnknownConstruct extends Error {}

/** A type checker over this one file alone: enough to tell which identifiers are the imports. */
function checkerFor(file) {
  const host = {
    getSourceFile: (name) => (name === file.fileName ? file : undefined),
    getDefaultLibFileName: () => 'lib.d.ts',
    writeFile: () => {},
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (name) => name === file.fileName,
    readFile: () => undefined,
  };
  const options = { noLib: true, noResolve: true, allowJs: true, types: [] };
  return ts.createProgram({ rootNames: [file.fileName], options, host }).getTypeChecker();
}

/** Returns the vitest version of `source`, or `source` itself when it does not import node:test. */
export function transform(source, fileName = 'input.ts') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : undefined);
  const fail = (node, what) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    throw new UnknownConstruct(`${fileName}:${line + 1}: ${what}: \`${node.getText(file).split('\n')[0]}\``);
  };
  const imports = file.statements.filter(
    (s) => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === 'node:test',
  );
  const findRequire = (node) => {
    if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0]) && node.arguments[0].text === 'node:test'
      && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      fail(node, 'node:test loaded dynamically');
    }
    if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === 'node:test') {
      fail(node, 'node:test re-exported');
    }
    ts.forEachChild(node, findRequire);
  };
  findRequire(file);
  if (imports.length === 0) return source;

  // References are resolved by symbol (a local `const before = ...` is not the hook).
  const checker = checkerFor(file);
  const symbolOf = (node) => checker.getSymbolAtLocation(node);
  // import symbol -> node:test name, for every value binding.
  const bindings = new Map();
  const vitestNames = [];
  const vitestTypes = [];
  for (const decl of imports) {
    const clause = decl.importClause;
    if (!clause) fail(decl, 'side-effect import of node:test');
    if (clause.name) fail(decl, 'default import of node:test');
    const named = clause.namedBindings;
    if (!named || !ts.isNamedImports(named)) fail(decl, 'namespace import of node:test');
    for (const spec of named.elements) {
      const imported = (spec.propertyName ?? spec.name).text;
      const local = spec.name.text;
      if (clause.isTypeOnly || spec.isTypeOnly) {
        if (!(imported in TYPES)) fail(spec, 'node:test type without a vitest counterpart');
        vitestTypes.push(spec.propertyName ? `${TYPES[imported]} as ${local}` : TYPES[imported]);
        continue;
      }
      if (!(imported in RENAMED) && !KEPT.has(imported)) fail(spec, 'node:test export without a conversion');
      bindings.set(symbolOf(spec.name), imported);
      const target = RENAMED[imported] ?? imported;
      // An alias keeps the file's own name for it; otherwise the references are renamed below.
      vitestNames.push(spec.propertyName ? `${target} as ${local}` : target);
    }
  }

  const edits = [];
  const replace = (node, text) => edits.push({ start: node.getStart(file), end: node.getEnd(), text });
  let needsVi = false;

  const literalText = (node) => node.getText(file);
  const bindingOf = (node) => (ts.isIdentifier(node) ? bindings.get(symbolOf(node)) : undefined);
  const isBinding = (node) => bindingOf(node) !== undefined;

  /** node:test options of a test or suite -> vitest options text, or '' when nothing is left. */
  const testOptions = (options) => {
    if (!ts.isObjectLiteralExpression(options)) fail(options, 'test options that are not an object literal');
    const kept = [];
    for (const prop of options.properties) {
      if (!ts.isPropertyAssignment(prop) || !ts.isIdentifier(prop.name)) fail(prop, 'test option the codemod cannot read');
      const key = prop.name.text;
      const value = prop.initializer;
      if (key === 'timeout') kept.push(`timeout: ${literalText(value)}`);
      else if (key === 'concurrency') {
        const isTrue = value.kind === ts.SyntaxKind.TrueKeyword;
        const isFalse = value.kind === ts.SyntaxKind.FalseKeyword;
        const n = ts.isNumericLiteral(value) ? Number(value.text) : undefined;
        if (isTrue || (n !== undefined && n > 1)) kept.push('concurrent: true');
        else if (!(isFalse || n === 1)) fail(prop, 'concurrency that is not a literal');
      } else if ((key === 'skip' || key === 'only' || key === 'todo') && (value.kind === ts.SyntaxKind.TrueKeyword || value.kind === ts.SyntaxKind.FalseKeyword)) {
        kept.push(`${key}: ${literalText(value)}`);
      } else fail(prop, `test option \`${key}\``);
    }
    return kept.length ? `{ ${kept.join(', ')} }` : '';
  };

  /** Rewrites the uses of a test's context parameter inside its body. */
  const convertContext = (callback) => {
    if (callback.parameters.length === 0) return;
    if (callback.parameters.length > 1) fail(callback.parameters[1], 'done-callback test');
    const param = callback.parameters[0];
    if (!ts.isIdentifier(param.name)) fail(param, 'destructured test context');
    const context = symbolOf(param.name);
    const visit = (node) => {
      if (ts.isIdentifier(node) && node !== param.name && symbolOf(node) === context) {
        const parent = node.parent;
        if (!ts.isPropertyAccessExpression(parent) || parent.expression !== node) fail(node, 'test context used as a value');
        const member = parent.name.text;
        if (member === 'after') replace(parent.name, 'onTestFinished');
        else if (member === 'name') replace(parent.name, 'task.name');
        else if (member === 'mock') {
          const outer = parent.parent;
          if (ts.isPropertyAccessExpression(outer) && outer.name.text === 'fn') {
            replace(outer, 'vi.fn');
            needsVi = true;
          } else fail(parent, 'test context mock other than mock.fn');
        } else if (member !== 'skip' && member !== 'signal') fail(parent, `test context member \`${member}\``);
      }
      ts.forEachChild(node, visit);
    };
    visit(callback.body);
  };

  const isFunction = (node) => node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

  const convertCall = (call) => {
    let callee = call.expression;
    let modifier;
    if (ts.isPropertyAccessExpression(callee) && isBinding(callee.expression)) {
      modifier = callee.name.text;
      callee = callee.expression;
    }
    const kind = bindingOf(callee);
    if (kind === 'mock') return; // handled with the mock references
    if (modifier !== undefined && !(MODIFIERS.has(modifier) && (TEST_FUNCTIONS.has(kind) || SUITE_FUNCTIONS.has(kind)))) {
      fail(call.expression, `\`${kind}.${modifier}\``);
    }
    const args = call.arguments;
    if (HOOKS.has(kind)) {
      if (!isFunction(args[0])) fail(call, 'hook without an inline function');
      if (args[0].parameters.length > 0) fail(args[0], 'hook using its context argument');
      if (args.length > 2) fail(call, 'hook with extra arguments');
      if (args[1]) {
        const options = args[1];
        if (!ts.isObjectLiteralExpression(options) || options.properties.length !== 1) fail(options, 'hook options other than { timeout }');
        const [prop] = options.properties;
        if (!ts.isPropertyAssignment(prop) || !ts.isIdentifier(prop.name) || prop.name.text !== 'timeout') fail(prop, 'hook option other than timeout');
        replace(options, literalText(prop.initializer));
      }
      return;
    }
    // test/it/describe/suite: (name, [options], [fn])
    if (args.length === 0 || isFunction(args[0])) fail(call, 'test without a name');
    if (args.length > 3) fail(call, 'test with extra arguments');
    let fn;
    if (args.length === 3) {
      const converted = testOptions(args[1]);
      if (converted) replace(args[1], converted);
      else edits.push({ start: args[0].getEnd(), end: args[1].getEnd(), text: '' });
      fn = args[2];
    } else if (args.length === 2) {
      if (ts.isObjectLiteralExpression(args[1])) {
        const converted = testOptions(args[1]);
        if (converted) replace(args[1], converted);
        else edits.push({ start: args[0].getEnd(), end: args[1].getEnd(), text: '' });
      } else fn = args[1];
    }
    if (fn !== undefined) {
      if (!isFunction(fn)) fail(fn, 'test body that is not an inline function');
      if (SUITE_FUNCTIONS.has(kind) && fn.parameters.length > 0) fail(fn, 'suite using its context argument');
      if (TEST_FUNCTIONS.has(kind)) convertContext(fn);
    }
  };

  const convertMock = (id) => {
    const access = id.parent;
    if (!ts.isPropertyAccessExpression(access) || access.expression !== id) fail(id, '`mock` used as a value');
    const member = access.name.text;
    const call = access.parent;
    needsVi = true;
    if (member === 'fn') return replace(access, 'vi.fn');
    if ((member === 'restoreAll' || member === 'reset') && ts.isCallExpression(call) && call.expression === access) {
      return replace(call, 'vi.restoreAllMocks()');
    }
    if (member === 'method' && ts.isCallExpression(call) && call.expression === access) {
      const [target, method, impl, extra] = call.arguments;
      if (!target || !method || extra) fail(call, 'mock.method with other arguments than (object, name[, implementation])');
      const spy = `vi.spyOn(${literalText(target)}, ${literalText(method)})`;
      return replace(call, impl ? `${spy}.mockImplementation(${literalText(impl)})` : spy);
    }
    if (member === 'timers' && ts.isPropertyAccessExpression(call) && ts.isCallExpression(call.parent) && call.parent.expression === call) {
      const timerCall = call.parent;
      const what = call.name.text;
      const timerArgs = timerCall.arguments.map(literalText).join(', ');
      if (what in TIMER_CALLS) return replace(timerCall, `vi.${TIMER_CALLS[what]}(${timerArgs})`);
      if (what === 'enable') {
        const [options] = timerCall.arguments;
        if (!options) return replace(timerCall, 'vi.useFakeTimers()');
        if (!ts.isObjectLiteralExpression(options)) fail(options, 'mock.timers.enable options that are not an object literal');
        const props = options.properties.map((prop) => {
          if (!ts.isPropertyAssignment(prop) || !ts.isIdentifier(prop.name)) fail(prop, 'mock.timers.enable option the codemod cannot read');
          if (prop.name.text === 'apis') return `toFake: ${literalText(prop.initializer)}`;
          if (prop.name.text === 'now') return `now: ${literalText(prop.initializer)}`;
          return fail(prop, `mock.timers.enable option \`${prop.name.text}\``);
        });
        return replace(timerCall, `vi.useFakeTimers({ ${props.join(', ')} })`);
      }
    }
    fail(access.parent, `\`mock.${member}\` use`);
  };

  const visit = (node) => {
    if (ts.isImportDeclaration(node)) return;
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (isBinding(callee) || (ts.isPropertyAccessExpression(callee) && isBinding(callee.expression))) convertCall(node);
    }
    const original = bindingOf(node);
    if (original !== undefined) {
      if (ts.isShorthandPropertyAssignment(node.parent)) fail(node.parent, 'node:test import used in shorthand property');
      const parent = node.parent;
      if (original === 'mock') convertMock(node);
      else if (ts.isPropertyAccessExpression(parent) && parent.expression === node && !MODIFIERS.has(parent.name.text)) {
        // test.mock is node:test's mock tracker too; any other member has no counterpart.
        if (parent.name.text === 'mock' && TEST_FUNCTIONS.has(original)) convertMock(parent);
        else fail(parent, `\`${original}.${parent.name.text}\``);
      } else if (original in RENAMED && node.text === original) replace(node, RENAMED[original]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);

  // Mock functions from node:test keep their record under .mock with another shape.
  if (needsVi) {
    const visitRecord = (node) => {
      if (ts.isPropertyAccessExpression(node) && node.name.text === 'mock' && !isBinding(node.expression)) {
        const next = node.parent;
        if (ts.isPropertyAccessExpression(next) && next.name.text === 'fn') {
          // t.mock.fn: the test context's mock tracker, converted above
        } else if (ts.isPropertyAccessExpression(next) && next.name.text === 'callCount' && ts.isCallExpression(next.parent)) {
          edits.push({ start: next.name.getStart(file), end: next.parent.getEnd(), text: 'calls.length' });
        } else if (ts.isPropertyAccessExpression(next) && next.name.text === 'calls') {
          const element = next.parent;
          if (ts.isElementAccessExpression(element) && ts.isPropertyAccessExpression(element.parent) && element.parent.name.text === 'arguments') {
            edits.push({ start: element.getEnd(), end: element.parent.getEnd(), text: '' });
          } else fail(next, 'mock call record other than .mock.calls[i].arguments');
        } else fail(node, 'mock record other than .mock.callCount() or .mock.calls[i].arguments');
      }
      ts.forEachChild(node, visitRecord);
    };
    visitRecord(file);
  }
  if (needsVi && !vitestNames.includes('vi')) vitestNames.push('vi');

  // One vitest import in place of the first node:test import (joining an existing vitest import).
  const existing = file.statements.find(
    (s) => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text === 'vitest'
      && s.importClause && !s.importClause.isTypeOnly && s.importClause.namedBindings && ts.isNamedImports(s.importClause.namedBindings),
  );
  const lines = [];
  if (existing) {
    const names = existing.importClause.namedBindings.elements.map((e) => e.getText(file));
    replace(existing, `import { ${[...new Set([...names, ...vitestNames])].join(', ')} } from 'vitest';`);
  } else if (vitestNames.length) lines.push(`import { ${vitestNames.join(', ')} } from 'vitest';`);
  if (vitestTypes.length) lines.push(`import type { ${vitestTypes.join(', ')} } from 'vitest';`);
  imports.forEach((decl, i) => {
    // Remove the whole line of each node:test import; the first one becomes the vitest import(s).
    const start = decl.getStart(file);
    let end = decl.getEnd();
    if (source[end] === '\n') end += 1;
    edits.push({ start, end, text: i === 0 && lines.length ? `${lines.join('\n')}\n` : '' });
  });

  edits.sort((a, b) => b.start - a.start);
  for (let i = 1; i < edits.length; i++) {
    if (edits[i].end > edits[i - 1].start) throw new Error(`${fileName}: overlapping edits (a bug in the codemod)`);
  }
  let out = source;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

function sourceFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (resolve(path) === resolve(here)) continue; // this codemod and its own tests
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(m|c)?(t|j)sx?$/.test(entry) && !entry.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const check = args[0] === '--check';
  if (check) args.shift();
  const files = args.length ? args.map((f) => resolve(f)) : sourceFiles(root);
  const results = [];
  const errors = [];
  for (const path of files) {
    const source = readFileSync(path, 'utf8');
    if (!source.includes('node:test')) continue;
    try {
      const out = transform(source, relative(root, path));
      if (out !== source) results.push({ path, out });
    } catch (error) {
      if (!(error instanceof UnknownConstruct)) throw error;
      errors.push(error.message);
    }
  }
  if (errors.length) {
    // Nothing is written unless every file converts: a half-converted tree is worse than none.
    console.error(`node-test-to-vitest: ${errors.length} construct(s) without a conversion; no file written:\n  ${errors.join('\n  ')}`);
    process.exit(1);
  }
  if (!check) for (const { path, out } of results) writeFileSync(path, out);
  console.log(`node-test-to-vitest: ${results.length} file(s) ${check ? 'to convert' : 'converted'}`);
  for (const { path } of results) console.log(`  ${relative(root, path)}`);
  if (check && results.length) process.exit(1);
}
