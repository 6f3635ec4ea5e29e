// An independent oracle for JavaScript units: acorn's own syntax tree (not tree-sitter's), walked
// by the rules docs/analysis.md states for the units hierarchy. Top-level function and class
// declarations; `const f = () => ...`; assignments of a function or class (named by their
// target: `exports.f`, `Foo.prototype.bar`); the methods and `key: function` pairs of an object
// literal that is assigned or bound at the top level; and the bodies an IIFE or UMD wrapper runs,
// scanned as the top level.
import * as acorn from 'acorn';

const isFunction = (n) =>
  n && (n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression');
const unwrap = (n) => {
  while (n && (n.type === 'UnaryExpression' || n.type === 'ParenthesizedExpression'))
    n = n.type === 'UnaryExpression' ? n.argument : n.expression;
  return n;
};

// The statement lists an immediately invoked function runs: its callee's (through calls that
// return it: browserify's `(function () {...})()(modules)`), and those of the functions each call
// is given: directly (UMD's factory), as an array's elements (webpack's modules) or as an object's
// values, each a function or an array holding one (browserify's `{1: [function () {...}, {}]}`).
function wrapperBodies(expr) {
  const calls = [];
  let callee = unwrap(expr);
  while (callee?.type === 'CallExpression' && calls.length < 4) {
    calls.push(callee);
    callee = unwrap(callee.callee);
    if (callee.type === 'MemberExpression') {
      if (callee.computed || !['call', 'apply'].includes(callee.property.name)) return [];
      callee = unwrap(callee.object);
    }
  }
  if (!calls.length || !isFunction(callee)) return [];
  const functionOrArray = (v) =>
    isFunction(v)
      ? [v]
      : v?.type === 'ArrayExpression'
        ? v.elements.map(unwrap).filter(isFunction)
        : [];
  const given = calls
    .reverse()
    .flatMap((call) =>
      call.arguments
        .map(unwrap)
        .flatMap((a) =>
          a.type === 'ObjectExpression'
            ? a.properties
                .filter((p) => p.type === 'Property')
                .flatMap((p) => functionOrArray(unwrap(p.value)))
            : functionOrArray(a),
        ),
    );
  return [callee, ...given].filter((f) => f.body.type === 'BlockStatement').map((f) => f.body.body);
}

// { definition: name } or { scopes: [...] } for a value bound or assigned to a name.
function value(v) {
  v = unwrap(v);
  if (!v) return {};
  if (isFunction(v) || v.type === 'ClassExpression') return { definition: true };
  if (v.type === 'ObjectExpression') return { scopes: [{ object: v }] };
  return { scopes: wrapperBodies(v).map((body) => ({ body })) };
}

/** The names of the function and class units of `code`, in source order (null: acorn fails). */
export function acornUnits(code) {
  let program;
  for (const sourceType of ['script', 'module']) {
    try {
      program = acorn.parse(code, { ecmaVersion: 'latest', sourceType, preserveParens: true });
      break;
    } catch {}
  }
  if (!program) return null;
  const text = (n) => code.slice(n.start, n.end);
  const names = [];
  // Explicit stack of members still to scan, first on top.
  const stack = [...program.body].reverse();
  while (stack.length) {
    let n = stack.pop();
    // `export function`, `export class`, `export const`: the declaration they export.
    if (/^Export(Named|Default)Declaration$/.test(n.type) && n.declaration) {
      if (/^(Function|Class|Variable)Declaration$/.test(n.declaration.type)) n = n.declaration;
    }
    let scopes = [];
    if (n.type === 'Property') {
      const v = value(n.value);
      // A quoted key names its unit without the quotes.
      const key =
        n.key.type === 'Literal' && typeof n.key.value === 'string' ? n.key.value : text(n.key);
      if (v.definition) names.push(n.computed ? `[${text(n.key)}]` : key);
      else scopes = v.scopes || [];
    } else if (n.type === 'FunctionDeclaration' || n.type === 'ClassDeclaration') {
      names.push(n.id ? n.id.name : '');
    } else if (n.type === 'VariableDeclaration') {
      const values = n.declarations.map((d) => ({ d, v: d.init ? value(d.init) : {} }));
      const found = values.find((x) => x.v.definition);
      if (found) names.push(text(found.d.id));
      else scopes = values.find((x) => x.v.scopes?.length)?.v.scopes || [];
    } else if (n.type === 'ExpressionStatement' || (n.type === 'ReturnStatement' && n.argument)) {
      // A bundle's factory returns its module table: `return (function (modules) {...})([...])`.
      const e = unwrap(n.type === 'ReturnStatement' ? n.argument : n.expression);
      if (e.type === 'AssignmentExpression') {
        let right = e.right;
        while (right.type === 'AssignmentExpression') right = right.right;
        const v = value(right);
        if (v.definition) names.push(text(e.left));
        else scopes = v.scopes || [];
      } else scopes = wrapperBodies(e).map((body) => ({ body }));
    }
    for (const s of [...scopes].reverse()) {
      const members = s.object ? s.object.properties.filter((p) => p.type === 'Property') : s.body;
      stack.push(...[...members].reverse());
    }
  }
  return names;
}
