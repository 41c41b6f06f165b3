// util.inspect, after Node's lib/internal/util/inspect.js: the same layout
// rules (compact = 3, breakLength = 80, grouping of long arrays), without
// colors, proxies or the rarer built-in types.

const inspectDefaults = {
  showHidden: false, depth: 2, colors: false, customInspect: true, showProxy: false,
  maxArrayLength: 100, maxStringLength: 10000, breakLength: 80, compact: 3,
  sorted: false, getters: false, numericSeparator: false,
};

const kObjectType = 0;
const kArrayExtrasType = 1;

function inspect(value, opts) {
  const ctx = {
    ...inspectDefaults, seen: [], circular: undefined, indentationLvl: 0, currentDepth: 0,
    stylize: (s) => s,
  };
  if (arguments.length > 1) {
    if (typeof opts === 'boolean') ctx.showHidden = opts;
    else if (opts) {
      for (const k of Object.keys(opts)) {
        if (hasOwn(inspectDefaults, k) || k === 'stylize') ctx[k] = opts[k];
      }
    }
  }
  if (ctx.depth === null) ctx.depth = Infinity;
  if (ctx.maxArrayLength === null) ctx.maxArrayLength = Infinity;
  if (ctx.maxStringLength === null) ctx.maxStringLength = Infinity;
  return formatValue(ctx, value, 0, true);
}
Object.defineProperty(inspect, 'custom', { value: kCustomInspect, enumerable: true });
Object.defineProperty(inspect, 'defaultOptions', { get: () => inspectDefaults, enumerable: true });

const strEscapeRe = /[\x00-\x1f\x27\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const strEscapeReNoQuote = /[\x00-\x1f\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const strEscapeMeta = [
  '\\x00', '\\x01', '\\x02', '\\x03', '\\x04', '\\x05', '\\x06', '\\x07',
  '\\b', '\\t', '\\n', '\\x0B', '\\f', '\\r', '\\x0E', '\\x0F',
  '\\x10', '\\x11', '\\x12', '\\x13', '\\x14', '\\x15', '\\x16', '\\x17',
  '\\x18', '\\x19', '\\x1A', '\\x1B', '\\x1C', '\\x1D', '\\x1E', '\\x1F',
];

function escapeChar(ch, quote) {
  const c = ch.charCodeAt(0);
  if (c < 0x20) return strEscapeMeta[c];
  if (ch === '\\') return '\\\\';
  if (ch === "'" ) return quote === "'" ? "\\'" : ch;
  if (c >= 0x7f && c <= 0x9f) return `\\x${c.toString(16).toUpperCase()}`;
  return `\\u${c.toString(16)}`;
}

function strEscape(str) {
  let quote = "'";
  let test = strEscapeRe;
  if (str.includes("'")) {
    if (!str.includes('"')) quote = '"';
    else if (!str.includes('`') && !str.includes('${')) quote = '`';
    if (quote !== "'") test = strEscapeReNoQuote;
  }
  if (!test.test(str)) return quote + str + quote;
  const global = new RegExp(test.source, 'g');
  return quote + str.replace(global, (ch) => escapeChar(ch, quote)) + quote;
}

function formatNumber(n, sep) {
  if (Object.is(n, -0)) return '-0';
  const s = `${n}`;
  if (!sep || !Number.isFinite(n)) return s;
  const [int, frac] = s.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, '_');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

function formatPrimitive(ctx, value) {
  switch (typeof value) {
    case 'string': {
      let trailer = '';
      if (value.length > ctx.maxStringLength) {
        const remaining = value.length - ctx.maxStringLength;
        value = value.slice(0, ctx.maxStringLength);
        trailer = `... ${remaining} more character${remaining > 1 ? 's' : ''}`;
      }
      if (ctx.compact !== true && value.length > 16 && value.length > ctx.breakLength - ctx.indentationLvl - 4) {
        return value.split(/(?<=\n)/).map((line) => strEscape(line)).join(` +\n${' '.repeat(ctx.indentationLvl + 2)}`) + trailer;
      }
      return strEscape(value) + trailer;
    }
    case 'number': return formatNumber(value, ctx.numericSeparator);
    case 'bigint': return `${value}n`;
    case 'boolean': return `${value}`;
    case 'undefined': return 'undefined';
    case 'symbol': return Symbol.prototype.toString.call(value);
  }
  return String(value);
}

function formatValue(ctx, value, recurseTimes, typedArray) {
  if (typeof value !== 'object' && typeof value !== 'function') return formatPrimitive(ctx, value);
  if (value === null) return 'null';
  if (ctx.customInspect) {
    let f;
    try { f = value[kCustomInspect]; } catch { f = undefined; }
    if (typeof f === 'function' && f !== inspect) {
      const depth = ctx.depth - recurseTimes;
      const opts = { ...ctx, depth, seen: undefined, circular: undefined };
      delete opts.seen; delete opts.circular; delete opts.indentationLvl; delete opts.currentDepth;
      const ret = f.call(value, depth, opts, inspect);
      if (ret !== value) {
        if (typeof ret !== 'string') return formatValue(ctx, ret, recurseTimes);
        return ret.replaceAll('\n', `\n${' '.repeat(ctx.indentationLvl)}`);
      }
    }
  }
  if (ctx.seen.includes(value)) {
    let index = 1;
    if (ctx.circular === undefined) {
      ctx.circular = new Map([[value, index]]);
    } else {
      index = ctx.circular.get(value);
      if (index === undefined) {
        index = ctx.circular.size + 1;
        ctx.circular.set(value, index);
      }
    }
    return `[Circular *${index}]`;
  }
  return formatRaw(ctx, value, recurseTimes, typedArray);
}

function constructorName(obj) {
  let o = obj;
  while (o !== null && o !== undefined) {
    let d;
    try { d = Object.getOwnPropertyDescriptor(o, 'constructor'); } catch { d = undefined; }
    if (d !== undefined && typeof d.value === 'function' && d.value.name !== '') {
      try {
        if (obj instanceof d.value) return String(d.value.name);
      } catch { /* not a constructor */ }
    }
    o = Object.getPrototypeOf(o);
  }
  return null;
}

function getPrefix(constructor, tag, fallback, size = '') {
  if (constructor === null) {
    if (tag !== '' && fallback !== tag) return `[${fallback}${size}: null prototype] [${tag}] `;
    return `[${fallback}${size}: null prototype] `;
  }
  if (tag !== '' && constructor !== tag) return `${constructor}${size} [${tag}] `;
  return `${constructor}${size} `;
}

function getKeys(value, showHidden) {
  const symbols = Object.getOwnPropertySymbols(value);
  if (showHidden) return [...Object.getOwnPropertyNames(value), ...symbols];
  const keys = Object.keys(value);
  for (const s of symbols) {
    if (Object.prototype.propertyIsEnumerable.call(value, s)) keys.push(s);
  }
  return keys;
}

function isIndex(k) { return typeof k === 'string' && /^(0|[1-9]\d*)$/.test(k) && Number(k) < 2 ** 32 - 1; }

const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayTag = Object.getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag).get;
function isTypedArray(v) { return typedArrayTag.call(v) !== undefined; }

function isError(v) {
  return v instanceof Error || Object.prototype.toString.call(v) === '[object Error]';
}

function isBoxed(v) {
  return v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof BigInt || v instanceof Symbol;
}

function functionBase(value, constructor, tag) {
  let src;
  try { src = Function.prototype.toString.call(value); } catch { src = ''; }
  if (src.startsWith('class') && /^class(?:\s|\{)/.test(src)) {
    let base = `[class ${value.name || '(anonymous)'}`;
    const sup = Object.getPrototypeOf(value);
    if (sup && sup.name) base += ` extends ${sup.name}`;
    else if (sup === null) base += ' extends [null prototype]';
    if (constructor !== 'Function' && constructor !== null) base += ` [${constructor}]`;
    return `${base}]`;
  }
  let type = 'Function';
  const ctor = constructor ?? 'Function';
  if (ctor === 'AsyncGeneratorFunction') type = 'AsyncGeneratorFunction';
  else if (ctor === 'GeneratorFunction') type = 'GeneratorFunction';
  else if (ctor === 'AsyncFunction') type = 'AsyncFunction';
  let base = `[${type}`;
  if (constructor === null) base += ' (null prototype)';
  base += value.name === '' ? ' (anonymous)' : `: ${value.name}`;
  base += ']';
  if (constructor !== type && constructor !== null && constructor !== 'Function') base += ` ${constructor}`;
  if (tag !== '' && constructor !== tag) base += ` [${tag}]`;
  return base;
}

function errorHeader(err) {
  try {
    const s = err.toString();
    if (typeof s === 'string') return s;
  } catch { /* fall through */ }
  return Error.prototype.toString.call(err);
}

// errorStack is err's stack as Node shows it: the header ("Name: message")
// then the frames (the engine's stack holds only the frames).
// hideInternalFrames drops the runtime's own frames from printed stacks
// (uncaught errors: they say nothing to the user).
let hideInternalFrames = false;

function errorStack(err) {
  let stack = '';
  try { stack = typeof err.stack === 'string' ? err.stack : ''; } catch { /* ignore */ }
  stack = host.mapStack(stack.replace(/\n+$/, ''));
  if (hideInternalFrames) stack = stack.split('\n').filter((l) => !l.includes('(node:internal/desk:')).join('\n');
  // As many frames as Node keeps (Error.stackTraceLimit): the engine keeps all.
  const limit = typeof Error.stackTraceLimit === 'number' ? Error.stackTraceLimit : 10;
  const lines = stack.split('\n');
  const frames = lines.filter((l) => l.startsWith('    at '));
  if (frames.length > limit) {
    let kept = 0;
    stack = lines.filter((l) => !l.startsWith('    at ') || kept++ < limit).join('\n');
  }
  const header = errorHeader(err);
  if (stack.startsWith(header) || /^\S/.test(stack)) return stack;
  return stack ? `${header}\n${stack}` : header;
}

function formatError(err, keys, ctx) {
  let stack = errorStack(err);
  for (const k of ['name', 'message', 'stack']) {
    const i = keys.indexOf(k);
    if (i !== -1 && (k !== 'name' || stack.includes(err.name)) && (k !== 'message' || stack.includes(err.message))) keys.splice(i, 1);
  }
  if ('cause' in err && !keys.includes('cause') && hasOwn(err, 'cause')) keys.push('cause');
  if (Array.isArray(err.errors) && !keys.includes('errors') && hasOwn(err, 'errors')) keys.push('errors');
  if (!stack.includes('\n    at ')) stack = `[${stack}]`;
  if (ctx.indentationLvl !== 0) stack = stack.replaceAll('\n', `\n${' '.repeat(ctx.indentationLvl)}`);
  return stack;
}

function formatRaw(ctx, value, recurseTimes, typedArray) {
  let keys;
  const constructor = constructorName(value);
  let tag = '';
  try { tag = value[Symbol.toStringTag]; } catch { tag = ''; }
  // The tag is shown unless it is an own enumerable property (shown anyway).
  if (typeof tag !== 'string' || (tag !== '' && (ctx.showHidden ? hasOwn(value, Symbol.toStringTag)
    : Object.prototype.propertyIsEnumerable.call(value, Symbol.toStringTag)))) tag = '';
  let base = '';
  let formatter = () => [];
  let braces;
  let extrasType = kObjectType;

  if (Array.isArray(value)) {
    const prefix = constructor !== 'Array' || tag !== '' ? getPrefix(constructor, tag, 'Array', `(${value.length})`) : '';
    keys = getKeys(value, ctx.showHidden).filter((k) => !isIndex(k) && (k !== 'length' || ctx.showHidden));
    braces = [`${prefix}[`, ']'];
    if (value.length === 0 && keys.length === 0) return `${braces[0]}]`;
    extrasType = kArrayExtrasType;
    formatter = formatArray;
  } else if (value instanceof Set) {
    const prefix = getPrefix(constructor, tag, 'Set', `(${value.size})`);
    keys = getKeys(value, ctx.showHidden);
    formatter = formatSet;
    if (value.size === 0 && keys.length === 0) return `${prefix}{}`;
    braces = [`${prefix}{`, '}'];
  } else if (value instanceof Map) {
    const prefix = getPrefix(constructor, tag, 'Map', `(${value.size})`);
    keys = getKeys(value, ctx.showHidden);
    formatter = formatMap;
    if (value.size === 0 && keys.length === 0) return `${prefix}{}`;
    braces = [`${prefix}{`, '}'];
  } else if (isTypedArray(value)) {
    const fallback = typedArrayTag.call(value);
    keys = getKeys(value, ctx.showHidden).filter((k) => !isIndex(k));
    const prefix = getPrefix(constructor, tag === fallback ? '' : tag, fallback, `(${value.length})`);
    braces = [`${prefix}[`, ']'];
    if (value.length === 0 && keys.length === 0 && !ctx.showHidden) return `${braces[0]}]`;
    formatter = formatTypedArray;
    extrasType = kArrayExtrasType;
  } else {
    keys = getKeys(value, ctx.showHidden);
    braces = ['{', '}'];
    if (constructor === 'Object') {
      if (tag !== '') braces[0] = `${getPrefix(constructor, tag, 'Object')}{`;
      if (keys.length === 0) return `${braces[0]}}`;
    } else if (typeof value === 'function') {
      base = functionBase(value, constructor, tag);
      keys = keys.filter((k) => k !== 'prototype' || ctx.showHidden);
      if (keys.length === 0) return base;
    } else if (value instanceof RegExp) {
      base = RegExp.prototype.toString.call(value);
      const prefix = getPrefix(constructor, tag, 'RegExp');
      if (prefix !== 'RegExp ') base = `${prefix}${base}`;
      keys = keys.filter((k) => k !== 'lastIndex');
      if (keys.length === 0) return base;
    } else if (value instanceof Date) {
      const t = Date.prototype.getTime.call(value);
      base = Number.isNaN(t) ? 'Invalid Date' : Date.prototype.toISOString.call(value);
      const prefix = getPrefix(constructor, tag, 'Date');
      if (prefix !== 'Date ') base = `${prefix}${base}`;
      if (keys.length === 0) return base;
    } else if (isError(value)) {
      base = formatError(value, keys, ctx);
      if (keys.length === 0) return base;
    } else if (value instanceof ArrayBuffer) {
      const prefix = getPrefix(constructor, tag, 'ArrayBuffer');
      formatter = formatArrayBuffer;
      braces[0] = `${prefix}{`;
      keys.unshift('byteLength');
    } else if (value instanceof DataView) {
      braces[0] = `${getPrefix(constructor, tag, 'DataView')}{`;
      keys.unshift('byteLength', 'byteOffset', 'buffer');
    } else if (value instanceof Promise) {
      braces[0] = `${getPrefix(constructor, tag, 'Promise')}{`;
      formatter = formatPromise;
    } else if (value instanceof WeakSet || value instanceof WeakMap || (typeof WeakRef === 'function' && value instanceof WeakRef)) {
      const fallback = value instanceof WeakSet ? 'WeakSet' : value instanceof WeakMap ? 'WeakMap' : 'WeakRef';
      braces[0] = `${getPrefix(constructor, tag, fallback)}{`;
      formatter = fallback === 'WeakRef' ? (c, v, r) => [formatValue(c, v.deref(), r)] : () => ['<items unknown>'];
    } else if (isBoxed(value)) {
      const prim = value.valueOf();
      const type = typeof prim === 'string' ? 'String' : typeof prim === 'number' ? 'Number' : typeof prim === 'boolean' ? 'Boolean' : typeof prim === 'bigint' ? 'BigInt' : 'Symbol';
      base = `[${type}`;
      if (type !== constructor) base += constructor === null ? ' (null prototype)' : ` (${constructor})`;
      base += `: ${formatPrimitive({ ...ctx, compact: true }, prim)}]`;
      if (type === 'String') keys = keys.filter((k) => !isIndex(k));
      if (keys.length === 0) return base;
    } else if (value === globalThis) {
      braces[0] = '<ref *1> Object [global] {';
    } else {
      if (keys.length === 0) return `${getPrefix(constructor, tag, 'Object')}{}`;
      braces[0] = `${getPrefix(constructor, tag, 'Object')}{`;
    }
  }

  if (recurseTimes > ctx.depth) {
    let name = getPrefix(constructor, tag, 'Object').slice(0, -1);
    if (constructor !== null) name = `[${name}]`;
    return name;
  }
  recurseTimes += 1;
  ctx.seen.push(value);
  ctx.currentDepth = recurseTimes;
  let output;
  try {
    output = formatter(ctx, value, recurseTimes);
    for (const k of keys) output.push(formatProperty(ctx, value, recurseTimes, k, extrasType));
  } finally {
    ctx.seen.pop();
  }
  if (ctx.circular !== undefined) {
    const index = ctx.circular.get(value);
    if (index !== undefined) {
      const ref = `<ref *${index}>`;
      if (ctx.compact !== true) base = base === '' ? ref : `${ref} ${base}`;
      else braces[0] = `${ref} ${braces[0]}`;
    }
  }
  if (ctx.sorted) {
    const cmp = ctx.sorted === true ? undefined : ctx.sorted;
    if (extrasType === kObjectType) output.sort(cmp);
  }
  return reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
}

function formatProperty(ctx, value, recurseTimes, key, type) {
  let desc;
  try { desc = Object.getOwnPropertyDescriptor(value, key); } catch { desc = undefined; }
  if (desc === undefined) desc = { value: value[key], enumerable: true };
  let str;
  if (desc.value !== undefined || !('get' in desc || 'set' in desc)) {
    const diff = ctx.compact !== true || type !== kObjectType ? 2 : 3;
    ctx.indentationLvl += diff;
    str = formatValue(ctx, desc.value, recurseTimes);
    ctx.indentationLvl -= diff;
  } else if (desc.get !== undefined) {
    str = desc.set !== undefined ? '[Getter/Setter]' : '[Getter]';
  } else if (desc.set !== undefined) {
    str = '[Setter]';
  } else {
    str = 'undefined';
  }
  if (type === kArrayExtrasType && typeof key === 'number') return str;
  let name;
  if (typeof key === 'symbol') name = `[${Symbol.prototype.toString.call(key)}]`;
  else if (key === '__proto__') name = "['__proto__']";
  else if (desc.enumerable === false) name = `[${/^[a-zA-Z_][a-zA-Z_0-9]*$/.test(key) ? key : strEscape(key)}]`;
  else if (/^[a-zA-Z_][a-zA-Z_0-9]*$/.test(key)) name = key;
  else name = strEscape(key);
  return `${name}: ${str}`;
}

function formatArray(ctx, value, recurseTimes) {
  const len = Math.min(Math.max(0, ctx.maxArrayLength), value.length);
  const remaining = value.length - len;
  const output = [];
  for (let i = 0; i < len; i++) {
    if (!hasOwn(value, i)) {
      let j = i;
      while (j < value.length && !hasOwn(value, j)) j++;
      const holes = j - i;
      output.push(`<${holes} empty item${holes > 1 ? 's' : ''}>`);
      i = j - 1;
      continue;
    }
    output.push(formatProperty(ctx, value, recurseTimes, i, kArrayExtrasType));
  }
  if (remaining > 0) output.push(`... ${remaining} more item${remaining > 1 ? 's' : ''}`);
  return output;
}

function formatTypedArray(ctx, value, recurseTimes) {
  const len = Math.min(Math.max(0, ctx.maxArrayLength), value.length);
  const remaining = value.length - len;
  const output = [];
  for (let i = 0; i < len; i++) {
    output.push(typeof value[i] === 'bigint' ? `${value[i]}n` : formatNumber(value[i], ctx.numericSeparator));
  }
  if (remaining > 0) output.push(`... ${remaining} more item${remaining > 1 ? 's' : ''}`);
  if (ctx.showHidden) {
    ctx.indentationLvl += 2;
    for (const k of ['BYTES_PER_ELEMENT', 'length', 'byteLength', 'byteOffset', 'buffer']) {
      output.push(`[${k}]: ${formatValue(ctx, value[k], recurseTimes, true)}`);
    }
    ctx.indentationLvl -= 2;
  }
  return output;
}

function formatArrayBuffer(ctx, value) {
  const b = new Uint8Array(value);
  let s = '';
  for (let i = 0; i < Math.min(50, b.length); i++) s += (i ? ' ' : '') + b[i].toString(16).padStart(2, '0');
  if (b.length > 50) s += ` ... ${b.length - 50} more byte${b.length - 50 > 1 ? 's' : ''}`;
  return [`[Uint8Contents]: <${s}>`];
}

function formatSet(ctx, value, recurseTimes) {
  const output = [];
  ctx.indentationLvl += 2;
  for (const v of value) output.push(formatValue(ctx, v, recurseTimes));
  ctx.indentationLvl -= 2;
  return output;
}

function formatMap(ctx, value, recurseTimes) {
  const output = [];
  ctx.indentationLvl += 2;
  for (const [k, v] of value) output.push(`${formatValue(ctx, k, recurseTimes)} => ${formatValue(ctx, v, recurseTimes)}`);
  ctx.indentationLvl -= 2;
  return output;
}

function formatPromise(ctx, value, recurseTimes) {
  const [state, result] = host.promiseState(value);
  if (state === 0) return ['<pending>'];
  ctx.indentationLvl += 2;
  const str = formatValue(ctx, result, recurseTimes);
  ctx.indentationLvl -= 2;
  return [state === 2 ? `<rejected> ${str}` : str];
}

function isBelowBreakLength(ctx, output, start, base) {
  let total = output.length + start;
  if (total + output.length > ctx.breakLength) return false;
  for (const o of output) {
    total += o.length;
    if (total > ctx.breakLength) return false;
  }
  return base === '' || !base.includes('\n');
}

function groupArrayElements(ctx, output, value) {
  let totalLength = 0;
  let maxLength = 0;
  let outputLength = output.length;
  if (ctx.maxArrayLength < output.length) outputLength--;
  const separatorSpace = 2;
  const dataLen = new Array(outputLength);
  for (let i = 0; i < outputLength; i++) {
    const len = output[i].length;
    dataLen[i] = len;
    totalLength += len + separatorSpace;
    if (maxLength < len) maxLength = len;
  }
  const actualMax = maxLength + separatorSpace;
  if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength &&
      (totalLength / actualMax > 5 || maxLength <= 6)) {
    const averageBias = Math.sqrt(actualMax - totalLength / output.length);
    const biasedMax = Math.max(actualMax - 3 - averageBias, 1);
    const columns = Math.min(
      Math.round(Math.sqrt(2.5 * biasedMax * outputLength) / biasedMax),
      Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
      ctx.compact * 4,
      15,
    );
    if (columns <= 1) return output;
    const tmp = [];
    const maxLineLength = [];
    for (let i = 0; i < columns; i++) {
      let lineLength = 0;
      for (let j = i; j < output.length; j += columns) {
        if (dataLen[j] > lineLength) lineLength = dataLen[j];
      }
      maxLineLength.push(lineLength + separatorSpace);
    }
    let padStart = true;
    if (value !== undefined) {
      for (let i = 0; i < output.length; i++) {
        if (typeof value[i] !== 'number' && typeof value[i] !== 'bigint') {
          padStart = false;
          break;
        }
      }
    }
    for (let i = 0; i < outputLength; i += columns) {
      const max = Math.min(i + columns, outputLength);
      let str = '';
      let j = i;
      for (; j < max - 1; j++) {
        const padding = maxLineLength[j - i] + output[j].length - dataLen[j];
        str += padStart ? `${output[j]}, `.padStart(padding, ' ') : `${output[j]}, `.padEnd(padding, ' ');
      }
      if (padStart) {
        const padding = maxLineLength[j - i] + output[j].length - dataLen[j] - separatorSpace;
        str += output[j].padStart(padding, ' ');
      } else {
        str += output[j];
      }
      tmp.push(str);
    }
    if (ctx.maxArrayLength < output.length) tmp.push(output[outputLength]);
    output = tmp;
  }
  return output;
}

function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
  if (ctx.compact !== true) {
    if (typeof ctx.compact === 'number' && ctx.compact >= 1) {
      const entries = output.length;
      if (extrasType === kArrayExtrasType && entries > 6) output = groupArrayElements(ctx, output, value);
      if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
        const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
        if (isBelowBreakLength(ctx, output, start, base)) {
          const joined = output.join(', ');
          if (!joined.includes('\n')) return `${base ? `${base} ` : ''}${braces[0]} ${joined} ${braces[1]}`;
        }
      }
    }
    const ind = `\n${' '.repeat(ctx.indentationLvl)}`;
    return `${base ? `${base} ` : ''}${braces[0]}${ind}  ${output.join(`,${ind}  `)}${ind}${braces[1]}`;
  }
  if (isBelowBreakLength(ctx, output, 0, base)) {
    return `${braces[0]}${base ? ` ${base}` : ''} ${output.join(', ')} ${braces[1]}`;
  }
  const ind = ' '.repeat(ctx.indentationLvl);
  const ln = base === '' && braces[0].length === 1 ? ' ' : `${base ? ` ${base}` : ''}\n${ind}  `;
  return `${braces[0]}${ln}${output.join(`,\n${ind}  `)} ${braces[1]}`;
}
