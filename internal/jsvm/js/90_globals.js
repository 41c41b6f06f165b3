// The globals Node offers that the engine lacks, and the module table.

function defineGlobal(name, value) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
}

defineGlobal('global', globalThis);
defineGlobal('console', consoleObject);
for (const [name, value] of Object.entries({
  setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate, queueMicrotask,
  structuredClone, atob, btoa, TextEncoder, TextDecoder, URL, URLSearchParams, DOMException, Buffer,
  EventTarget: undefined,
})) {
  if (value !== undefined) defineGlobal(name, value);
}
lazy(globalThis, 'process', makeProcess);
lazy(globalThis, 'crypto', () => ({ randomUUID, getRandomValues, subtle: undefined }));
// fetch and its classes: 91_fetch.js.
if (typeof Error.captureStackTrace !== 'function') {
  Object.defineProperty(Error, 'captureStackTrace', {
    value: function captureStackTrace(obj) {
      validateObject(obj, 'object');
      const frames = (new Error().stack ?? '').split('\n').slice(1).join('\n');
      Object.defineProperty(obj, 'stack', { value: frames, writable: true, configurable: true, enumerable: false });
    },
    writable: true, configurable: true, enumerable: false,
  });
}
if (Error.stackTraceLimit === undefined) Error.stackTraceLimit = 10;

// builtinModules maps the canonical name of each built-in module to the
// function making its exports.
const builtinModules = {
  'node:fs/promises': makeFsPromisesModule,
  'node:fs': makeFsModule,
  'node:path': makePathModule,
  'node:path/posix': makePathModule,
  'node:buffer': makeBufferModule,
  'node:process': makeProcess,
  'node:util': makeUtilModule,
  'node:url': makeURLModule,
  'node:events': makeEventsModule,
  'node:assert': makeAssertModule,
  'node:assert/strict': () => makeAssertModule().strict,
  'node:crypto': makeCryptoModule,
  'node:timers': makeTimersModule,
  'node:timers/promises': makeTimersPromisesModule,
  'node:console': () => consoleObject,
};

// internals.module returns [exports, names] of a built-in module.
internals.module = function module(name) {
  const make = builtinModules[name];
  const exp = make();
  const names = Object.keys(exp).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
  if (typeof exp === 'function') {
    for (const k of Object.getOwnPropertyNames(exp)) {
      if (!names.includes(k) && !['length', 'name', 'prototype', 'arguments', 'caller', 'default'].includes(k) && /^[A-Za-z_$][\w$]*$/.test(k)) names.push(k);
    }
  }
  return [exp, names];
};

// internals.hostModule makes the exports of a module implemented in Go: each
// function sends its arguments as JSON and returns the JSON result.
internals.hostModule = function hostModule(name, fnNames) {
  const exp = {};
  for (const fn of fnNames) {
    exp[fn] = async (...args) => {
      const r = host.callHost(name, fn, JSON.stringify(args));
      return r === undefined ? undefined : JSON.parse(r);
    };
  }
  return [exp, fnNames.filter((k) => /^[A-Za-z_$][\w$]*$/.test(k))];
};
