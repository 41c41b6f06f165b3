// structuredClone: the structured clone algorithm for the types a script
// can hold here (no transfer of ArrayBuffers).

function structuredClone(value, options) {
  if (arguments.length === 0) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "value" argument must be specified');
  const memory = new Map();
  const fail = (what) => { throw new DOMException(`${what} could not be cloned.`, 'DataCloneError'); };
  const clone = (v) => {
    if (typeof v === 'symbol') fail(String(v));
    if (typeof v === 'function') fail(inspect(v));
    if (typeof v !== 'object' || v === null) return v;
    if (memory.has(v)) return memory.get(v);
    let out;
    if (v instanceof Boolean) out = new Boolean(v.valueOf());
    else if (v instanceof Number) out = new Number(v.valueOf());
    else if (v instanceof String) out = new String(v.valueOf());
    else if (v instanceof BigInt) out = Object(v.valueOf());
    else if (v instanceof Date) out = new Date(v.getTime());
    else if (v instanceof RegExp) out = new RegExp(v.source, v.flags);
    else if (v instanceof ArrayBuffer) out = v.slice(0);
    else if (ArrayBuffer.isView(v)) {
      const buf = clone(v.buffer);
      const Ctor = v instanceof DataView ? DataView : (v instanceof FastBuffer ? Uint8Array : Object.getPrototypeOf(Object.getPrototypeOf(v)) === typedArrayProto ? v.constructor : Uint8Array);
      out = v instanceof DataView ? new DataView(buf, v.byteOffset, v.byteLength) : new Ctor(buf, v.byteOffset, v.length);
    } else if (v instanceof Map) {
      out = new Map();
      memory.set(v, out);
      for (const [k, x] of v) out.set(clone(k), clone(x));
      return out;
    } else if (v instanceof Set) {
      out = new Set();
      memory.set(v, out);
      for (const x of v) out.add(clone(x));
      return out;
    } else if (isError(v)) {
      const names = { EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
      const Ctor = names[v.name] ?? Error;
      out = new Ctor(v.message);
      memory.set(v, out);
      if ('stack' in v) Object.defineProperty(out, 'stack', { value: v.stack, writable: true, configurable: true });
      if (hasOwn(v, 'cause')) out.cause = clone(v.cause);
      return out;
    } else if (Array.isArray(v)) {
      out = new Array(v.length);
      memory.set(v, out);
      for (const k of Object.keys(v)) out[k] = clone(v[k]);
      return out;
    } else if (v instanceof Promise || v instanceof WeakMap || v instanceof WeakSet || (typeof WeakRef === 'function' && v instanceof WeakRef)) {
      fail(inspect(v));
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null && constructorName(v) !== 'Object') {
        // Class instances clone as plain objects, as in Node.
      }
      out = {};
      memory.set(v, out);
      for (const k of Object.keys(v)) out[k] = clone(v[k]);
      return out;
    }
    memory.set(v, out);
    return out;
  };
  if (options !== undefined && options !== null && options.transfer !== undefined && options.transfer.length) {
    throw new DOMException('Transferring is not supported by the js backend', 'DataCloneError');
  }
  return clone(value);
}
