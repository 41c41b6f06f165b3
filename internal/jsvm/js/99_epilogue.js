// Running the main module: wait for its evaluation (top-level await), call
// its default export with the input, settle with the JSON of the result.

const { parse: jsonParse, stringify: jsonStringify } = JSON; // the user's code may replace JSON's

internals.start = function start(ns, evaluated, input) {
  (async () => {
    await evaluated;
    const f = ns.default;
    if (typeof f !== 'function') return undefined;
    return f(input === undefined ? undefined : jsonParse(input));
  })().then((v) => {
    let json;
    try {
      json = v === undefined ? undefined : jsonStringify(v);
    } catch (e) {
      host.settle(false, e);
      return;
    }
    host.settle(true, json);
  }, (e) => host.settle(false, e));
};

// internals.formatError prints a thrown value as Node prints an uncaught one.
internals.formatError = function formatError(e) {
  hideInternalFrames = true;
  try {
    return inspect(e);
  } catch {
    try { return String(e); } catch { return 'a value that cannot be printed'; }
  } finally {
    hideInternalFrames = false;
  }
};

// internals.makeError makes the errors the host throws: kind(message) with
// props (JSON, in order), an optional name; a code ERR_* shows in toString
// as in Node; without frames the stack is the first line only.
internals.makeError = function makeError(kind, message, props, name, frames) {
  const Ctor = { TypeError, RangeError, SyntaxError, ReferenceError }[kind] ?? Error;
  const e = new Ctor(message);
  if (name !== '') Object.defineProperty(e, 'name', { value: name, writable: true, configurable: true, enumerable: false });
  const p = JSON.parse(props);
  for (const k of Object.keys(p)) e[k] = p[k];
  if (typeof p.code === 'string' && p.code.startsWith('ERR_')) {
    Object.defineProperty(e, 'toString', {
      value() { return `${this.name} [${p.code}]: ${this.message}`; },
      writable: true, configurable: true, enumerable: false,
    });
  }
  if (!frames) Object.defineProperty(e, 'stack', { value: e.toString(), writable: true, configurable: true, enumerable: false });
  return e;
};

return internals;
})
