// The js backend's runtime, evaluated once per execution. The Go side
// compiles the concatenation of the files of this directory, in name order,
// as one function expression and calls it with the host functions and the
// execution's configuration; it returns the internals the Go side drives
// (start, fire, module, formatError, exitCode). Nothing here is reachable by
// the user's code except through the globals and modules it defines.
(function (host, config) {
'use strict';

const internals = Object.create(null);
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const kCustomInspect = Symbol.for('nodejs.util.inspect.custom');

// NodeError makes errors shaped as Node's: a code property, and the code in
// the first line of the stack and of toString ("TypeError [ERR_X]: ...").
function nodeError(Ctor, code, message) {
  const e = new Ctor(message);
  Object.defineProperty(e, 'code', { value: code, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(e, 'toString', {
    value() { return `${this.name} [${code}]: ${this.message}`; },
    enumerable: false, writable: true, configurable: true,
  });
  return e;
}

// received describes a value for an ERR_INVALID_ARG_TYPE message, as Node.
function received(v) {
  if (v == null) return ` Received ${v}`;
  if (typeof v === 'function') return ` Received function ${v.name || '<anonymous>'}`;
  if (typeof v === 'object') {
    if (v.constructor && v.constructor.name) return ` Received an instance of ${v.constructor.name}`;
    return ` Received ${inspect(v, { depth: -1 })}`;
  }
  let shown = inspect(v, { colors: false });
  if (shown.length > 28) shown = `${shown.slice(0, 25)}...`;
  return ` Received type ${typeof v} (${shown})`;
}

function invalidArgType(name, expected, value) {
  const what = name.endsWith(' argument') ? name : `"${name}" ${name.includes('.') ? 'property' : 'argument'}`;
  return nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The ${what} must be ${expected}.${received(value)}`);
}

function invalidArgValue(name, value, reason = 'is invalid') {
  let shown = inspect(value);
  if (shown.length > 128) shown = `${shown.slice(0, 128)}...`;
  const what = name.includes('.') ? 'property' : 'argument';
  return nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The ${what} '${name}' ${reason}. Received ${shown}`);
}

function validateString(v, name) {
  if (typeof v !== 'string') throw invalidArgType(name, 'of type string', v);
}

function validateFunction(v, name) {
  if (typeof v !== 'function') throw invalidArgType(name, 'of type function', v);
}

function validateObject(v, name) {
  if (v === null || typeof v !== 'object') throw invalidArgType(name, 'of type object', v);
}

function validateInteger(v, name, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  if (typeof v !== 'number') throw invalidArgType(name, 'of type number', v);
  if (!Number.isInteger(v)) {
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "${name}" is out of range. It must be an integer. Received ${inspect(v)}`);
  }
  if (v < min || v > max) {
    throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "${name}" is out of range. It must be >= ${min} && <= ${max}. Received ${inspect(v)}`);
  }
}

// lazy defines globalThis[name] computed on first use; assigning replaces it.
function lazy(obj, name, make) {
  Object.defineProperty(obj, name, {
    configurable: true,
    enumerable: false,
    get() {
      const v = make();
      Object.defineProperty(obj, name, { value: v, writable: true, configurable: true, enumerable: false });
      return v;
    },
    set(v) {
      Object.defineProperty(obj, name, { value: v, writable: true, configurable: true, enumerable: false });
    },
  });
}

// once returns a function that computes make() the first time only.
function once(make) {
  let done = false, v;
  return () => {
    if (!done) { v = make(); done = true; }
    return v;
  };
}
