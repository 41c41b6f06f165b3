// node:process: the execution's environment, fixed argv and platform, cwd,
// exit and exitCode, stdin as an async iterable (and 'data'/'end' events),
// stdout and stderr as writable streams.

function writable(fd) {
  return {
    fd,
    writable: true,
    write(chunk, encoding, cb) {
      if (typeof encoding === 'function') { cb = encoding; encoding = undefined; }
      if (typeof chunk === 'string') {
        const enc = encoding === undefined ? 'utf8' : normEncoding(encoding);
        host.write(fd, enc === 'utf8' ? chunk : new Uint8Array(host.encode(chunk, enc)));
      } else if (ArrayBuffer.isView(chunk)) {
        host.write(fd, chunk);
      } else {
        throw invalidArgType('chunk', 'of type string or an instance of Buffer, TypedArray, or DataView', chunk);
      }
      if (typeof cb === 'function') setImmediate(cb, null);
      return true;
    },
    end(chunk, encoding, cb) {
      if (typeof chunk === 'function') { cb = chunk; chunk = undefined; }
      if (chunk !== undefined && chunk !== null) this.write(chunk, encoding);
      if (typeof cb === 'function') setImmediate(cb);
      return this;
    },
    on() { return this; },
    once() { return this; },
    off() { return this; },
    removeListener() { return this; },
    emit() { return false; },
    cork() {},
    uncork() {},
    getColorDepth() { return 1; },
    hasColors() { return false; },
  };
}

function makeStdin() {
  let encoding = null;
  const listeners = { data: [], end: [] };
  let flowing = false;
  let ended = false;
  const readChunk = () => {
    const ab = host.readStdin(65536);
    if (ab === null) return null;
    const b = new FastBuffer(ab);
    return encoding === null ? b : b.toString(encoding);
  };
  const flow = () => {
    if (ended) return;
    const chunk = readChunk();
    if (chunk === null) {
      ended = true;
      for (const f of listeners.end) f();
      return;
    }
    for (const f of listeners.data) f(chunk);
    setImmediate(flow);
  };
  const stdin = {
    fd: 0,
    readable: true,
    setEncoding(enc) { encoding = enc === undefined || enc === null ? null : normEncoding(enc); return this; },
    on(event, fn) {
      validateFunction(fn, 'listener');
      if (event === 'data' || event === 'end') {
        listeners[event].push(fn);
        if (event === 'data' && !flowing) {
          flowing = true;
          setImmediate(flow);
        }
      }
      return this;
    },
    once(event, fn) {
      const wrapped = (...a) => { this.off(event, wrapped); fn(...a); };
      return this.on(event, wrapped);
    },
    off(event, fn) {
      if (listeners[event]) listeners[event] = listeners[event].filter((f) => f !== fn);
      return this;
    },
    resume() { if (!flowing) { flowing = true; setImmediate(flow); } return this; },
    pause() { return this; },
    read() { return ended ? null : readChunk(); },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const chunk = readChunk();
        if (chunk === null) return;
        yield chunk;
      }
    },
  };
  stdin.addListener = stdin.on;
  stdin.removeListener = stdin.off;
  return stdin;
}

let exitCodeValue;

// The nextTick queue, as Node's: the host runs it (internals.runTicks) after
// the main module's microtasks have drained and after each timer's callback,
// before the microtasks that callback queued; microtasks run after each
// round of ticks.
const tickQueue = [];

internals.runTicks = function runTicks() {
  for (let t = tickQueue.shift(); t !== undefined; t = tickQueue.shift()) {
    t.cb(...t.args);
  }
};

function nextTick(cb, ...args) {
  validateFunction(cb, 'callback');
  if (tickQueue.length === 0) host.tickQueued();
  tickQueue.push({ cb, args });
}

// makeEnv makes process.env: assigned values become strings, as in Node.
function makeEnv(vars) {
  const target = Object.assign({}, vars);
  return new Proxy(target, {
    set(t, k, v) {
      if (typeof k === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
      t[k] = String(v);
      return true;
    },
    defineProperty(t, k, d) {
      if (!('value' in d) || d.configurable === false || d.writable === false || d.enumerable === false) {
        throw nodeError(TypeError, 'ERR_INVALID_OBJECT_DEFINE_PROPERTY', `'process.env' only accepts a configurable, writable, and enumerable data descriptor`);
      }
      t[k] = String(d.value);
      return true;
    },
  });
}

const makeProcess = once(() => {
  const start = host.now();
  const proc = {
    title: 'desk-js',
    version: 'v20.0.0',
    versions: { node: '20.0.0', quickjs: config.engine, desk: '1' },
    release: { name: 'desk-js' },
    arch: config.arch,
    platform: 'linux',
    pid: config.pid,
    ppid: 0,
    argv: ['/usr/local/bin/node', config.main],
    argv0: 'node',
    execArgv: [],
    execPath: '/usr/local/bin/node',
    env: makeEnv(config.env),
    features: {},
    config: {},
    cwd() { return config.cwd; },
    chdir() {
      throw nodeError(Error, 'ERR_WORKER_UNSUPPORTED_OPERATION', 'process.chdir() is not supported by the js backend: pass a cwd with the execution');
    },
    umask() { return 0o022; },
    exit(code) {
      if (code !== undefined) proc.exitCode = code;
      host.exit(exitCodeValue ?? 0);
    },
    abort() { host.exit(134); },
    kill() { throw nodeError(Error, 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM', 'process.kill() is not available in the js backend'); },
    hrtime(prev) {
      const ns = host.hrtime();
      let s = Math.floor(ns / 1e9);
      let n = ns - s * 1e9;
      if (Array.isArray(prev)) {
        s -= prev[0];
        n -= prev[1];
        if (n < 0) { s--; n += 1e9; }
      }
      return [s, Math.round(n)];
    },
    uptime() { return (host.now() - start) / 1000; },
    memoryUsage() {
      const used = host.memoryUsed();
      return { rss: used, heapTotal: used, heapUsed: used, external: 0, arrayBuffers: 0 };
    },
    cpuUsage() { const us = Math.round(host.hrtime() / 1000); return { user: us, system: 0 }; },
    nextTick,
    emitWarning(warning, type = 'Warning') {
      const msg = typeof warning === 'string' ? warning : warning?.message;
      host.write(2, `(node:${config.pid}) ${typeof type === 'string' ? type : type?.type ?? 'Warning'}: ${msg}\n`);
    },
    on() { return proc; },
    once() { return proc; },
    off() { return proc; },
    addListener() { return proc; },
    removeListener() { return proc; },
    removeAllListeners() { return proc; },
    listeners() { return []; },
    emit() { return false; },
    stdout: writable(1),
    stderr: writable(2),
    stdin: makeStdin(),
  };
  proc.hrtime.bigint = () => BigInt(Math.round(host.hrtime()));
  Object.defineProperty(proc, 'exitCode', {
    get() { return exitCodeValue; },
    set(v) {
      if (v !== undefined && v !== null) {
        const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
        validateInteger(n, 'code');
        exitCodeValue = n;
      } else {
        exitCodeValue = undefined;
      }
    },
    enumerable: true,
    configurable: false,
  });
  return proc;
});

internals.exitCode = () => exitCodeValue ?? 0;
