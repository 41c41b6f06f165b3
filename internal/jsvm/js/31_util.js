// util.format and the node:util module.

const builtInNames = new Set([
  'Object', 'Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError',
  'AggregateError', 'Array', 'Boolean', 'Date', 'Function', 'Map', 'Number', 'Promise', 'RegExp', 'Set',
  'String', 'Symbol', 'WeakMap', 'WeakSet', 'BigInt', 'ArrayBuffer', 'DataView', 'Uint8Array',
  'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array', 'Float32Array', 'Float64Array',
  'BigInt64Array', 'BigUint64Array', 'Uint8ClampedArray',
]);

function hasBuiltInToString(value) {
  if (typeof value.toString !== 'function') return true;
  if (hasOwn(value, 'toString')) return false;
  let p = value;
  do { p = Object.getPrototypeOf(p); } while (p !== null && !hasOwn(p, 'toString'));
  if (p === null) return true;
  const d = Object.getOwnPropertyDescriptor(p, 'constructor');
  return d !== undefined && typeof d.value === 'function' && builtInNames.has(d.value.name);
}

function tryStringify(v) {
  try {
    return JSON.stringify(v);
  } catch (e) {
    if (e instanceof TypeError && /circular/i.test(e.message)) return '[Circular]';
    throw e;
  }
}

function formatWithOptions(inspectOptions, ...args) {
  validateObject(inspectOptions, 'inspectOptions');
  return formatArgs(inspectOptions, args);
}

function format(...args) { return formatArgs(undefined, args); }

function formatArgs(inspectOptions, args) {
  const first = args[0];
  let a = 0;
  let str = '';
  let join = '';
  const opts = inspectOptions ?? {};
  if (typeof first === 'string') {
    if (args.length === 1) return first;
    let tempStr;
    let lastPos = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) !== 37) continue; // '%'
      const next = first.charCodeAt(++i);
      if (a + 1 !== args.length) {
        switch (next) {
          case 115: { // 's'
            const v = args[++a];
            if (typeof v === 'number') tempStr = formatNumber(v);
            else if (typeof v === 'bigint') tempStr = `${v}n`;
            else if (typeof v !== 'object' || v === null || !hasBuiltInToString(v)) tempStr = String(v);
            else tempStr = inspect(v, { ...opts, depth: 0, colors: false, compact: 3 });
            break;
          }
          case 106: tempStr = tryStringify(args[++a]); break; // 'j'
          case 100: { // 'd'
            const v = args[++a];
            if (typeof v === 'bigint') tempStr = `${v}n`;
            else if (typeof v === 'symbol') tempStr = 'NaN';
            else tempStr = formatNumber(Number(v));
            break;
          }
          case 79: tempStr = inspect(args[++a], opts); break; // 'O'
          case 111: tempStr = inspect(args[++a], { ...opts, showHidden: true, showProxy: true, depth: 4 }); break; // 'o'
          case 105: { // 'i'
            const v = args[++a];
            if (typeof v === 'bigint') tempStr = `${v}n`;
            else if (typeof v === 'symbol') tempStr = 'NaN';
            else tempStr = formatNumber(Number.parseInt(v));
            break;
          }
          case 102: { // 'f'
            const v = args[++a];
            tempStr = typeof v === 'symbol' ? 'NaN' : formatNumber(Number.parseFloat(v));
            break;
          }
          case 99: a += 1; tempStr = ''; break; // 'c'
          case 37: str += first.slice(lastPos, i); lastPos = i + 1; continue; // '%'
          default: continue;
        }
        if (lastPos !== i - 1) str += first.slice(lastPos, i - 1);
        str += tempStr;
        lastPos = i + 1;
      } else if (next === 37) {
        str += first.slice(lastPos, i);
        lastPos = i + 1;
      }
    }
    if (lastPos !== 0) {
      a++;
      join = ' ';
      if (lastPos < first.length) str += first.slice(lastPos);
    }
  }
  while (a < args.length) {
    const v = args[a];
    str += join;
    str += typeof v !== 'string' ? inspect(v, opts) : v;
    join = ' ';
    a++;
  }
  return str;
}

const kPromisifyCustom = Symbol.for('nodejs.util.promisify.custom');

function promisify(original) {
  validateFunction(original, 'original');
  if (original[kPromisifyCustom]) return original[kPromisifyCustom];
  function fn(...args) {
    return new Promise((resolve, reject) => {
      Reflect.apply(original, this, [...args, (err, ...values) => {
        if (err) return reject(err);
        resolve(values[0]);
      }]);
    });
  }
  Object.setPrototypeOf(fn, Object.getPrototypeOf(original));
  Object.defineProperty(fn, kPromisifyCustom, { value: fn, enumerable: false, writable: false, configurable: true });
  return Object.defineProperties(fn, Object.getOwnPropertyDescriptors(original));
}
promisify.custom = kPromisifyCustom;

function callbackify(original) {
  validateFunction(original, 'original');
  return function (...args) {
    const cb = args.pop();
    validateFunction(cb, 'last argument');
    Reflect.apply(original, this, args).then(
      (v) => queueMicrotask(() => cb(null, v)),
      (e) => queueMicrotask(() => cb(e ?? nodeError(Error, 'ERR_FALSY_VALUE_REJECTION', 'Promise was rejected with falsy value'))),
    );
  };
}

function inherits(ctor, superCtor) {
  validateFunction(ctor, 'ctor');
  validateFunction(superCtor, 'superCtor');
  if (superCtor.prototype === undefined) throw invalidArgType('superCtor.prototype', 'of type object', superCtor.prototype);
  Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

const warned = new Set();
function deprecate(fn, msg, code) {
  validateFunction(fn, 'fn');
  return function (...args) {
    if (!warned.has(msg)) {
      warned.add(msg);
      host.write(2, `(node:${config.pid}) ${code ? `[${code}] ` : ''}DeprecationWarning: ${msg}\n`);
    }
    return new.target ? Reflect.construct(fn, args, new.target) : Reflect.apply(fn, this, args);
  };
}

function isDeepStrictEqual(a, b, seen = new Map()) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  const tag = Object.prototype.toString.call(a);
  if (tag !== Object.prototype.toString.call(b)) return false;
  if (a instanceof Date) return Object.is(a.getTime(), b.getTime());
  if (a instanceof RegExp) return a.source === b.source && a.flags === b.flags && a.lastIndex === b.lastIndex;
  if (isBoxed(a)) return Object.is(a.valueOf(), b.valueOf());
  if (ArrayBuffer.isView(a)) {
    if (a.byteLength !== b.byteLength) return false;
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  if (a instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !isDeepStrictEqual(v, b.get(k), seen)) return false;
  }
  if (a instanceof Set) {
    if (a.size !== b.size) return false;
    outer: for (const v of a) {
      if (b.has(v)) continue;
      if (typeof v === 'object' && v !== null) {
        for (const w of b) if (isDeepStrictEqual(v, w, seen)) continue outer;
      }
      return false;
    }
  }
  if (isError(a) && (a.message !== b.message || a.name !== b.name)) return false;
  const ka = getKeys(a, false);
  const kb = getKeys(b, false);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.propertyIsEnumerable.call(b, k)) return false;
    if (!isDeepStrictEqual(a[k], b[k], seen)) return false;
  }
  return true;
}

function stripVTControlCharacters(str) {
  validateString(str, 'str');
  return str.replace(/[\u001B\u009B][[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))/g, '');
}

const types = {
  isDate: (v) => v instanceof Date,
  isRegExp: (v) => v instanceof RegExp,
  isPromise: (v) => v instanceof Promise,
  isMap: (v) => v instanceof Map,
  isSet: (v) => v instanceof Set,
  isWeakMap: (v) => v instanceof WeakMap,
  isWeakSet: (v) => v instanceof WeakSet,
  isTypedArray: (v) => typeof v === 'object' && v !== null && isTypedArray(v),
  isUint8Array: (v) => v instanceof Uint8Array,
  isArrayBuffer: (v) => v instanceof ArrayBuffer,
  isAnyArrayBuffer: (v) => v instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer),
  isArrayBufferView: (v) => ArrayBuffer.isView(v),
  isDataView: (v) => v instanceof DataView,
  isNativeError: (v) => isError(v),
  isBoxedPrimitive: (v) => typeof v === 'object' && v !== null && isBoxed(v),
  isAsyncFunction: (v) => typeof v === 'function' && constructorName(v) === 'AsyncFunction',
  isGeneratorFunction: (v) => typeof v === 'function' && /GeneratorFunction$/.test(constructorName(v) ?? ''),
  isGeneratorObject: (v) => Object.prototype.toString.call(v) === '[object Generator]',
  isSymbolObject: (v) => v instanceof Symbol,
  isNumberObject: (v) => v instanceof Number,
  isStringObject: (v) => v instanceof String,
  isBooleanObject: (v) => v instanceof Boolean,
  isBigIntObject: (v) => v instanceof BigInt,
  isProxy: () => false,
};

const makeUtilModule = once(() => ({
  format, formatWithOptions, inspect, promisify, callbackify, inherits, deprecate, isDeepStrictEqual,
  stripVTControlCharacters, types, parseArgs,
  isArray: Array.isArray,
  toUSVString: (s) => `${s}`.toWellFormed?.() ?? `${s}`,
  TextEncoder, TextDecoder,
}));
