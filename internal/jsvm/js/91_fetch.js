// fetch and what it needs: Headers, Request, Response, AbortController,
// AbortSignal, and ReadableStream (enough of it for bodies: readers, async
// iteration, tee). Requests go to the host (fetch.go), which sends them
// through the execution's network (run.Job.Net, where the egress policy is
// enforced) and hands the body back a chunk at a time, when the stream is
// read. Each global is defined only if an earlier file has not defined it.
// The block keeps these names out of the other files' scope.
{
const kGuard = Symbol('guard');
const kList = Symbol('list');
const kInternal = Symbol('internal');

// --- AbortSignal, AbortController -----------------------------------------

class AbortSignal {
  #aborted = false; #reason = undefined; #listeners = []; #onabort = null;
  constructor(token) {
    if (token !== kInternal) throw nodeError(TypeError, 'ERR_ILLEGAL_CONSTRUCTOR', 'Illegal constructor');
  }
  get aborted() { return this.#aborted; }
  get reason() { return this.#reason; }
  get onabort() { return this.#onabort; }
  set onabort(f) { this.#onabort = typeof f === 'function' ? f : null; }
  throwIfAborted() { if (this.#aborted) throw this.#reason; }
  addEventListener(type, listener, options) {
    if (type !== 'abort' || listener == null) return;
    if (this.#listeners.some((l) => l.listener === listener)) return;
    this.#listeners.push({ listener, once: typeof options === 'object' && options !== null && Boolean(options.once) });
  }
  removeEventListener(type, listener) {
    if (type !== 'abort') return;
    this.#listeners = this.#listeners.filter((l) => l.listener !== listener);
  }
  dispatchEvent(event) {
    const ls = this.#listeners.slice();
    if (this.#onabort !== null) Reflect.apply(this.#onabort, this, [event]);
    for (const l of ls) {
      if (l.once) this.removeEventListener('abort', l.listener);
      if (typeof l.listener === 'function') Reflect.apply(l.listener, this, [event]);
      else if (l.listener && typeof l.listener.handleEvent === 'function') l.listener.handleEvent(event);
    }
    return true;
  }
  [kInternal](reason) {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.dispatchEvent({ type: 'abort', target: this, currentTarget: this, isTrusted: true });
  }
  get [Symbol.toStringTag]() { return 'AbortSignal'; }
  [kCustomInspect](depth, options) { return `AbortSignal { aborted: ${this.#aborted} }`; }
  static abort(reason) {
    const s = new AbortSignal(kInternal);
    s[kInternal](reason);
    return s;
  }
  static timeout(ms) {
    validateInteger(ms, 'delay', 0, Number.MAX_SAFE_INTEGER);
    const s = new AbortSignal(kInternal);
    setTimeout(() => s[kInternal](new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms).unref();
    return s;
  }
  static any(signals) {
    const s = new AbortSignal(kInternal);
    for (const t of signals) {
      if (t.aborted) { s[kInternal](t.reason); return s; }
    }
    for (const t of signals) t.addEventListener('abort', () => s[kInternal](t.reason), { once: true });
    return s;
  }
}

class AbortController {
  #signal = new AbortSignal(kInternal);
  get signal() { return this.#signal; }
  abort(reason) { this.#signal[kInternal](reason); }
  get [Symbol.toStringTag]() { return 'AbortController'; }
  [kCustomInspect](depth, options) { return `AbortController { signal: ${inspect(this.#signal, options)} }`; }
}

// abortListen calls f when signal (any AbortSignal-like object) aborts and
// returns the function that stops listening.
function abortListen(signal, f) {
  if (signal == null || typeof signal.addEventListener !== 'function') return () => {};
  signal.addEventListener('abort', f, { once: true });
  return () => signal.removeEventListener('abort', f);
}

// --- ReadableStream ---------------------------------------------------------

// streamState is the internal state of a ReadableStream.
class StreamState {
  constructor(stream) {
    this.stream = stream;
    this.state = 'readable'; // 'closed', 'errored'
    this.queue = [];
    this.reads = []; // pending read requests: { resolve, reject }
    this.reader = null;
    this.error = undefined;
    this.closeRequested = false;
    this.disturbed = false;
    this.started = false;
    this.pulling = false;
    this.pullAgain = false;
    this.hwm = 1;
    this.source = {};
    this.controller = null;
  }
  desiredSize() { return this.state === 'readable' ? this.hwm - this.queue.length : this.state === 'closed' ? 0 : null; }
  enqueue(chunk) {
    if (this.closeRequested || this.state !== 'readable') throw new TypeError('Invalid state: Controller is already closed');
    if (this.reads.length > 0) this.reads.shift().resolve({ value: chunk, done: false });
    else this.queue.push(chunk);
    this.maybePull();
  }
  close() {
    if (this.closeRequested || this.state !== 'readable') throw new TypeError('Invalid state: Controller is already closed');
    this.closeRequested = true;
    if (this.queue.length === 0) this.finish();
  }
  finish() {
    this.state = 'closed';
    for (const r of this.reads.splice(0)) r.resolve({ value: undefined, done: true });
    if (this.reader) this.reader.settleClosed(true);
  }
  fail(e) {
    if (this.state !== 'readable') return;
    this.state = 'errored';
    this.error = e;
    this.queue = [];
    for (const r of this.reads.splice(0)) r.reject(e);
    if (this.reader) this.reader.settleClosed(false, e);
  }
  maybePull() {
    if (!this.started || this.state !== 'readable' || this.closeRequested) return;
    if (this.reads.length === 0 && this.desiredSize() <= 0) return;
    if (this.pulling) { this.pullAgain = true; return; }
    if (typeof this.source.pull !== 'function') return;
    this.pulling = true;
    let p;
    try {
      p = Promise.resolve(Reflect.apply(this.source.pull, this.source, [this.controller]));
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(() => {
      this.pulling = false;
      if (this.pullAgain) { this.pullAgain = false; this.maybePull(); }
    }, (e) => { this.pulling = false; this.fail(e); });
  }
  read() {
    this.disturbed = true;
    if (this.queue.length > 0) {
      const value = this.queue.shift();
      if (this.closeRequested && this.queue.length === 0) this.finish();
      else this.maybePull();
      return Promise.resolve({ value, done: false });
    }
    if (this.state === 'closed') return Promise.resolve({ value: undefined, done: true });
    if (this.state === 'errored') return Promise.reject(this.error);
    const p = new Promise((resolve, reject) => this.reads.push({ resolve, reject }));
    this.maybePull();
    return p;
  }
  cancel(reason) {
    this.disturbed = true;
    if (this.state === 'closed') return Promise.resolve();
    if (this.state === 'errored') return Promise.reject(this.error);
    this.queue = [];
    this.finish();
    try {
      const c = this.source.cancel;
      return Promise.resolve(typeof c === 'function' ? Reflect.apply(c, this.source, [reason]) : undefined).then(() => undefined);
    } catch (e) {
      return Promise.reject(e);
    }
  }
}

class ReadableStreamDefaultController {
  #s;
  constructor(token, s) {
    if (token !== kInternal) throw nodeError(TypeError, 'ERR_ILLEGAL_CONSTRUCTOR', 'Illegal constructor');
    this.#s = s;
  }
  get desiredSize() { return this.#s.desiredSize(); }
  enqueue(chunk) { this.#s.enqueue(chunk); }
  close() { this.#s.close(); }
  error(e) { this.#s.fail(e); }
  get [Symbol.toStringTag]() { return 'ReadableStreamDefaultController'; }
}

const streamStates = new WeakMap();

class ReadableStream {
  constructor(source = undefined, strategy = undefined) {
    const s = new StreamState(this);
    streamStates.set(this, s);
    if (source === null) throw invalidArgType('source', 'an object', source);
    if (source !== undefined) {
      if (typeof source !== 'object' && typeof source !== 'function') throw invalidArgType('source', 'an object', source);
      if (source.type === 'bytes') {
        // Treated as a default stream: byte sources get no BYOB readers.
      } else if (source.type !== undefined) {
        throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument 'source.type' is invalid. Received ${inspect(source.type)}`);
      }
      s.source = source;
    }
    if (strategy !== undefined && strategy !== null && strategy.highWaterMark !== undefined) {
      const h = Number(strategy.highWaterMark);
      if (Number.isNaN(h) || h < 0) throw new RangeError('Invalid highWaterMark');
      s.hwm = h;
    }
    s.controller = new ReadableStreamDefaultController(kInternal, s);
    let started;
    try {
      started = typeof s.source.start === 'function' ? Reflect.apply(s.source.start, s.source, [s.controller]) : undefined;
    } catch (e) {
      s.fail(e);
      throw e;
    }
    Promise.resolve(started).then(() => { s.started = true; s.maybePull(); }, (e) => s.fail(e));
  }
  get locked() { return streamStates.get(this).reader !== null; }
  getReader(options = undefined) {
    if (options && options.mode !== undefined) {
      if (options.mode === 'byob') throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', 'The js backend has no BYOB readers (ReadableStreamBYOBReader)');
      throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument 'options.mode' is invalid. Received ${inspect(options.mode)}`);
    }
    return new ReadableStreamDefaultReader(this);
  }
  cancel(reason) {
    const s = streamStates.get(this);
    if (s.reader !== null) return Promise.reject(nodeError(TypeError, 'ERR_INVALID_STATE', 'Invalid state: ReadableStream is locked'));
    return s.cancel(reason);
  }
  tee() {
    const reader = this.getReader();
    let left, right;
    let pulling = false;
    const pull = () => {
      if (pulling) return undefined;
      pulling = true;
      return reader.read().then(({ value, done }) => {
        pulling = false;
        if (done) {
          for (const c of [left, right]) try { c.close(); } catch { /* closed or cancelled */ }
          return;
        }
        for (const c of [left, right]) try { c.enqueue(value); } catch { /* cancelled */ }
      }, (e) => { for (const c of [left, right]) c.error(e); });
    };
    let cancelled = 0;
    const cancel = () => { if (++cancelled === 2) return reader.cancel(); return undefined; };
    const a = new ReadableStream({ start(c) { left = c; }, pull, cancel });
    const b = new ReadableStream({ start(c) { right = c; }, pull, cancel });
    return [a, b];
  }
  async *values(options = undefined) {
    const reader = this.getReader();
    const preventCancel = Boolean(options?.preventCancel);
    let finished = false;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) { finished = true; return; }
        yield value;
      }
    } catch (e) {
      finished = true;
      throw e;
    } finally {
      if (!finished && !preventCancel) await reader.cancel();
      reader.releaseLock();
    }
  }
  [Symbol.asyncIterator](options) { return this.values(options); }
  get [Symbol.toStringTag]() { return 'ReadableStream'; }
  [kCustomInspect](depth, options) {
    const s = streamStates.get(this);
    return `ReadableStream { locked: ${s.reader !== null}, state: '${s.state}', supportsBYOB: false }`;
  }
}

class ReadableStreamDefaultReader {
  #s; #closed; #settle;
  constructor(stream) {
    const s = streamStates.get(stream);
    if (s === undefined) throw invalidArgType('stream', 'an instance of ReadableStream', stream);
    if (s.reader !== null) throw nodeError(TypeError, 'ERR_INVALID_STATE', 'Invalid state: ReadableStream is locked');
    this.#s = s;
    s.reader = this;
    this.#closed = new Promise((resolve, reject) => { this.#settle = { resolve, reject }; });
    this.#closed.catch(() => {});
    if (s.state === 'closed') this.settleClosed(true);
    else if (s.state === 'errored') this.settleClosed(false, s.error);
  }
  settleClosed(ok, e) {
    if (this.#settle === null) return;
    if (ok) this.#settle.resolve(undefined); else this.#settle.reject(e);
    this.#settle = null;
  }
  get closed() { return this.#closed; }
  read() {
    if (this.#s === null) return Promise.reject(nodeError(TypeError, 'ERR_INVALID_STATE', 'Invalid state: The reader is not attached to a stream'));
    return this.#s.read();
  }
  cancel(reason) {
    if (this.#s === null) return Promise.reject(nodeError(TypeError, 'ERR_INVALID_STATE', 'Invalid state: The reader is not attached to a stream'));
    return this.#s.cancel(reason);
  }
  releaseLock() {
    const s = this.#s;
    if (s === null) return;
    const e = nodeError(TypeError, 'ERR_INVALID_STATE', 'Invalid state: Releasing reader');
    for (const r of s.reads.splice(0)) r.reject(e);
    if (this.#settle !== null) this.settleClosed(false, e);
    s.reader = null;
    this.#s = null;
  }
  get [Symbol.toStringTag]() { return 'ReadableStreamDefaultReader'; }
}

// --- Headers ------------------------------------------------------------------

const tokenRe = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function headerName(name, where) {
  name = String(name);
  if (!tokenRe.test(name)) throw new TypeError(`Headers.${where}: "${name}" is an invalid header name.`);
  return name.toLowerCase();
}

function headerValue(value, where) {
  value = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (/[\0\r\n]/.test(value)) throw new TypeError(`Headers.${where}: "${value}" is an invalid header value.`);
  return value;
}

class Headers {
  constructor(init = undefined) {
    Object.defineProperty(this, kList, { value: [], writable: true });
    Object.defineProperty(this, kGuard, { value: 'none', writable: true });
    if (init === undefined || init === null) {
      if (init === null) throw new TypeError("Headers constructor: Expected init to be an object.");
      return;
    }
    if (typeof init !== 'object' && typeof init !== 'function') throw new TypeError('Headers constructor: Expected init to be an object.');
    if (init instanceof Headers) {
      this[kList] = init[kList].map(([k, v]) => [k, v]);
    } else if (typeof init[Symbol.iterator] === 'function') {
      for (const pair of init) {
        const p = typeof pair === 'string' ? null : [...pair];
        if (p === null || p.length !== 2) throw new TypeError(`Headers constructor: expected name/value pair to be length 2, found ${p === null ? 0 : p.length}.`);
        this.append(p[0], p[1]);
      }
    } else {
      for (const k of Reflect.ownKeys(init)) {
        if (typeof k === 'symbol') continue;
        this.append(k, init[k]);
      }
    }
  }
  #check() { if (this[kGuard] === 'immutable') throw new TypeError('immutable'); }
  append(name, value) {
    const n = headerName(name, 'append');
    const v = headerValue(value, 'append');
    this.#check();
    this[kList].push([n, v]);
  }
  delete(name) {
    const n = headerName(name, 'delete');
    this.#check();
    this[kList] = this[kList].filter(([k]) => k !== n);
  }
  get(name) {
    const n = headerName(name, 'get');
    const vs = this[kList].filter(([k]) => k === n).map(([, v]) => v);
    return vs.length === 0 ? null : vs.join(', ');
  }
  getSetCookie() { return this[kList].filter(([k]) => k === 'set-cookie').map(([, v]) => v); }
  has(name) {
    const n = headerName(name, 'has');
    return this[kList].some(([k]) => k === n);
  }
  set(name, value) {
    const n = headerName(name, 'set');
    const v = headerValue(value, 'set');
    this.#check();
    const list = this[kList];
    const i = list.findIndex(([k]) => k === n);
    if (i < 0) { list.push([n, v]); return; }
    list[i] = [n, v];
    this[kList] = list.filter(([k], j) => k !== n || j === i);
  }
  // entries: sorted by name, values of one name joined (set-cookie apart).
  *entries() {
    const names = [...new Set(this[kList].map(([k]) => k))].sort();
    for (const n of names) {
      if (n === 'set-cookie') { for (const v of this.getSetCookie()) yield [n, v]; } else yield [n, this.get(n)];
    }
  }
  *keys() { for (const [k] of this.entries()) yield k; }
  *values() { for (const [, v] of this.entries()) yield v; }
  forEach(cb, thisArg = undefined) {
    validateFunction(cb, 'callback');
    for (const [k, v] of this.entries()) Reflect.apply(cb, thisArg, [v, k, this]);
  }
  [Symbol.iterator]() { return this.entries(); }
  get [Symbol.toStringTag]() { return 'Headers'; }
  [kCustomInspect](depth, options) {
    const o = {};
    for (const [k] of this[kList]) if (!hasOwn(o, k)) o[k] = k === 'set-cookie' ? this.getSetCookie() : this.get(k);
    if (Object.keys(o).length === 0) return 'Headers {}';
    return `Headers ${inspect(o, options)}`;
  }
}

// --- bodies -----------------------------------------------------------------

const textEncoder = new TextEncoder();

// extractBody turns a body init into [stream or bytes, content type].
function extractBody(body) {
  if (typeof body === 'string') return [textEncoder.encode(body), 'text/plain;charset=UTF-8'];
  if (body instanceof URLSearchParams) return [textEncoder.encode(body.toString()), 'application/x-www-form-urlencoded;charset=UTF-8'];
  if (body instanceof ArrayBuffer) return [new Uint8Array(body.slice(0)), null];
  if (ArrayBuffer.isView(body)) return [new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)), null];
  if (body instanceof ReadableStream) return [body, null];
  if (typeof body === 'object' && body !== null && typeof body[Symbol.asyncIterator] === 'function' && typeof body.getReader === 'function') return [body, null];
  return [textEncoder.encode(String(body)), 'text/plain;charset=UTF-8'];
}

// bytesStream is a stream of one chunk.
function bytesStream(bytes) {
  return new ReadableStream({
    start(c) {
      if (bytes.byteLength > 0) c.enqueue(bytes);
      c.close();
    },
  });
}

function concatChunks(chunks, total) {
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) { out.set(c, off); off += c.byteLength; }
  return out;
}

// Body is the part Request and Response share: kBody holds { stream, bytes }
// (bytes until the stream is asked for), or null.
const kBody = Symbol('body');

const unusable = () => new TypeError('Body is unusable: Body has already been read');

const bodyMethods = {
  get body() {
    const b = this[kBody];
    if (b === null) return null;
    if (b.stream === null) b.stream = bytesStream(b.bytes);
    return b.stream;
  },
  get bodyUsed() {
    const b = this[kBody];
    return b !== null && (b.used || (b.stream !== null && streamStates.get(b.stream)?.disturbed === true));
  },
  async bytes() {
    const b = this[kBody];
    if (b === null) return new Uint8Array(0);
    if (this.bodyUsed || (b.stream !== null && b.stream.locked)) throw unusable();
    if (b.stream === null) {
      b.used = true;
      return b.bytes;
    }
    const reader = b.stream.getReader();
    const { chunks, total } = await readChunks(reader, (value) => {
      if (!(value instanceof Uint8Array)) throw new TypeError('Received non-Uint8Array chunk');
      return value;
    });
    reader.releaseLock();
    return chunks.length === 1 ? chunks[0] : concatChunks(chunks, total);
  },
  async arrayBuffer() {
    const u = await this.bytes();
    return u.byteOffset === 0 && u.byteLength === u.buffer.byteLength ? u.buffer : u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength);
  },
  async text() { return new TextDecoder().decode(await this.bytes()); },
  async json() { return JSON.parse(await this.text()); },
  async blob() { throw nodeError(TypeError, 'ERR_DESK_UNSUPPORTED', 'Blob is not available in the js backend: use arrayBuffer() or bytes()'); },
  async formData() { throw nodeError(TypeError, 'ERR_DESK_UNSUPPORTED', 'FormData is not available in the js backend: use text() and URLSearchParams'); },
};

function mixBody(proto) {
  for (const k of Object.keys(Object.getOwnPropertyDescriptors(bodyMethods))) {
    const d = Object.getOwnPropertyDescriptor(bodyMethods, k);
    d.enumerable = false;
    Object.defineProperty(proto, k, d);
  }
}

// cloneBody tees a body for clone(): the original keeps one branch.
function cloneBody(b) {
  if (b === null) return null;
  if (b.used || (b.stream !== null && (b.stream.locked || streamStates.get(b.stream).disturbed))) throw new TypeError('Response.clone: Body has already been consumed.');
  if (b.stream === null) return { stream: null, bytes: b.bytes, used: false };
  const [x, y] = b.stream.tee();
  b.stream = x;
  return { stream: y, bytes: null, used: false };
}

// --- Request -------------------------------------------------------------------

const normalMethods = { DELETE: 'DELETE', GET: 'GET', HEAD: 'HEAD', OPTIONS: 'OPTIONS', POST: 'POST', PUT: 'PUT' };
const kReq = Symbol('request');

class Request {
  constructor(input, init = undefined) {
    if (arguments.length < 1) throw new TypeError("Request constructor: 1 argument required, but only 0 present.");
    init = init ?? {};
    let url, method = 'GET', headers, body = null, signal = null, redirect = 'follow';
    if (input instanceof Request) {
      const r = input[kReq];
      url = r.url; method = r.method; headers = new Headers(r.headers); redirect = r.redirect; signal = r.userSignal;
      if (r.body !== null && init.body === undefined) {
        if (input.bodyUsed) throw new TypeError('Request constructor: Cannot construct a Request with a Request object that has already been used.');
        body = r.body;
      }
    } else {
      const s = String(input);
      let u;
      try {
        u = new URL(s);
      } catch (e) {
        throw new TypeError(`Failed to parse URL from ${s}`, { cause: e });
      }
      if (u.username !== '' || u.password !== '') throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${s}`);
      url = u.href;
    }
    if (init.method !== undefined) {
      const m = String(init.method);
      if (!tokenRe.test(m)) throw new TypeError(`'${m}' is not a valid HTTP method.`);
      const up = m.toUpperCase();
      if (up === 'CONNECT' || up === 'TRACE' || up === 'TRACK') throw new TypeError(`'${m}' HTTP method is unsupported.`);
      method = normalMethods[up] ?? m;
    }
    if (init.redirect !== undefined) {
      const r = String(init.redirect);
      if (r !== 'follow' && r !== 'manual' && r !== 'error') {
        throw new TypeError(`Request constructor: ${r} is not an accepted type. Expected one of follow, manual, error.`);
      }
      redirect = r;
    }
    if (init.signal !== undefined) {
      if (init.signal !== null && (typeof init.signal !== 'object' || !('aborted' in init.signal))) {
        throw new TypeError("Failed to construct 'Request': member signal is not of type AbortSignal.");
      }
      signal = init.signal;
    }
    if (init.headers !== undefined) headers = new Headers(init.headers);
    else if (headers === undefined) headers = new Headers();
    if (init.body !== undefined && init.body !== null) {
      if (method === 'GET' || method === 'HEAD') throw new TypeError('Request with GET/HEAD method cannot have body.');
      const [src, type] = extractBody(init.body);
      if (!(src instanceof Uint8Array) && init.duplex !== 'half') throw new TypeError('RequestInit: duplex option is required when sending a body.');
      body = src instanceof Uint8Array ? { stream: null, bytes: src, used: false } : { stream: src, bytes: null, used: false };
      if (type !== null && !headers.has('content-type')) headers.append('content-type', type);
    } else if (init.body === null) {
      body = null;
    } else if (body !== null && input instanceof Request) {
      body = cloneBody(body);
    }
    const userSignal = signal;
    let own = null;
    if (signal !== null) {
      own = new AbortController();
      if (signal.aborted) own.abort(signal.reason);
      else abortListen(signal, () => own.abort(signal.reason));
    }
    // A request without a signal gets its own (never aborted) when asked.
    Object.defineProperty(this, kReq, { value: { url, method, headers, redirect, own, userSignal, body,
      get signal() { if (this.own === null) this.own = new AbortController(); return this.own.signal; } } });
    Object.defineProperty(this, kBody, { get() { return this[kReq].body; } });
  }
  get url() { return this[kReq].url; }
  get method() { return this[kReq].method; }
  get headers() { return this[kReq].headers; }
  get redirect() { return this[kReq].redirect; }
  get signal() { return this[kReq].signal; }
  get cache() { return 'default'; }
  get credentials() { return 'same-origin'; }
  get destination() { return ''; }
  get integrity() { return ''; }
  get keepalive() { return false; }
  get mode() { return 'cors'; }
  get referrer() { return 'about:client'; }
  get referrerPolicy() { return ''; }
  get duplex() { return 'half'; }
  clone() {
    if (this.bodyUsed) throw new TypeError('Request.clone: Body has already been consumed.');
    const r = this[kReq];
    const c = new Request(r.url, { method: r.method, headers: r.headers, redirect: r.redirect, signal: r.userSignal ?? undefined });
    c[kReq].body = cloneBody(r.body);
    return c;
  }
  get [Symbol.toStringTag]() { return 'Request'; }
  [kCustomInspect](depth, options) {
    const r = this[kReq];
    return `Request ${inspect({ method: r.method, url: r.url, headers: r.headers, destination: '', referrer: 'about:client', referrerPolicy: '', mode: 'cors', credentials: 'same-origin', cache: 'default', redirect: r.redirect, integrity: '', keepalive: false, isReloadNavigation: false, isHistoryNavigation: false, signal: r.signal }, options)}`;
  }
}
mixBody(Request.prototype);

// --- Response ------------------------------------------------------------------

const nullBodyStatus = (s) => s === 101 || s === 103 || s === 204 || s === 205 || s === 304;
const redirectStatus = (s) => s === 301 || s === 302 || s === 303 || s === 307 || s === 308;
const kRes = Symbol('response');

class Response {
  constructor(body = null, init = undefined) {
    init = init ?? {};
    const status = init.status === undefined ? 200 : Number(init.status);
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
    }
    const statusText = init.statusText === undefined ? '' : String(init.statusText);
    if (/[^\t\x20-\x7e\x80-\xff]/.test(statusText)) throw new TypeError('Invalid statusText');
    const headers = new Headers(init.headers);
    let b = null;
    if (body !== null && body !== undefined) {
      if (nullBodyStatus(status)) throw new TypeError(`Response constructor: Invalid response status code ${status}`);
      const [src, type] = extractBody(body);
      b = src instanceof Uint8Array ? { stream: null, bytes: src, used: false } : { stream: src, bytes: null, used: false };
      if (type !== null && !headers.has('content-type')) headers.append('content-type', type);
    }
    Object.defineProperty(this, kRes, { value: { status, statusText, headers, type: 'default', url: '', redirected: false, body: b }, writable: true });
    Object.defineProperty(this, kBody, { get() { return this[kRes].body; } });
  }
  get status() { return this[kRes].status; }
  get statusText() { return this[kRes].statusText; }
  get ok() { const s = this[kRes].status; return s >= 200 && s <= 299; }
  get headers() { return this[kRes].headers; }
  get type() { return this[kRes].type; }
  get url() { return this[kRes].url; }
  get redirected() { return this[kRes].redirected; }
  clone() {
    const r = this[kRes];
    const c = new Response(null, { status: 200 });
    const h = new Headers(r.headers);
    h[kGuard] = r.headers[kGuard];
    c[kRes] = { ...r, headers: h, body: cloneBody(r.body) };
    return c;
  }
  static error() {
    const r = new Response(null, { status: 200 });
    r[kRes].status = 0;
    r[kRes].type = 'error';
    r[kRes].headers[kGuard] = 'immutable';
    return r;
  }
  static json(data, init = undefined) {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError('Value is not JSON serializable');
    const r = new Response(text, init);
    if (!(init && init.headers && new Headers(init.headers).has('content-type'))) r[kRes].headers.set('content-type', 'application/json');
    return r;
  }
  static redirect(url, status = 302) {
    let href;
    try {
      href = new URL(String(url)).href;
    } catch (e) {
      throw new TypeError(`Failed to parse URL from ${url}`, { cause: e });
    }
    if (!redirectStatus(status)) throw new RangeError(`Invalid status code ${status}`);
    const r = new Response(null, { status });
    r[kRes].headers.set('location', href);
    r[kRes].headers[kGuard] = 'immutable';
    return r;
  }
  get [Symbol.toStringTag]() { return 'Response'; }
  [kCustomInspect](depth, options) {
    const r = this[kRes];
    return `Response ${inspect({ status: r.status, statusText: r.statusText, headers: r.headers, body: this.body, bodyUsed: this.bodyUsed, ok: this.ok, redirected: r.redirected, type: r.type, url: r.url }, options)}`;
  }
}
mixBody(Response.prototype);

// --- fetch -------------------------------------------------------------------

// fetchOps are the operations waiting for the host: fetch id → the
// { resolve, reject } of the request's response or of the next chunk.
const fetchOps = new Map();
let nextFetchId = 1;

internals.fetchEvent = function fetchEvent(id, kind, value) {
  const op = fetchOps.get(id);
  if (op === undefined) return;
  fetchOps.delete(id);
  switch (kind) {
    case 'head': op.resolve(JSON.parse(value)); break;
    case 'data': op.resolve({ chunk: new Uint8Array(value), last: false }); break;
    case 'last': op.resolve({ chunk: new Uint8Array(value), last: true }); break;
    case 'end': op.resolve(null); break;
    default: op.reject(JSON.parse(value));
  }
};

// causeError makes the cause of a failed fetch from the host's description.
function causeError(f) {
  const e = new Error(f.message);
  for (const k of ['errno', 'code', 'syscall', 'address', 'port']) {
    if (f[k] !== undefined) Object.defineProperty(e, k, { value: f[k], enumerable: true, writable: true, configurable: true });
  }
  return e;
}

function fetchFailed(f) {
  const cause = causeError(f);
  if (f.code === 'ERR_DESK_NO_NETWORK') {
    const e = nodeError(TypeError, 'ERR_DESK_NO_NETWORK', `fetch failed: ${f.message}`);
    Object.defineProperty(e, 'cause', { value: cause, writable: true, configurable: true, enumerable: false });
    return e;
  }
  return new TypeError('fetch failed', { cause });
}

function hostOp(id, start) {
  const p = new Promise((resolve, reject) => fetchOps.set(id, { resolve, reject }));
  try {
    start();
  } catch (e) {
    fetchOps.delete(id);
    return Promise.reject(e);
  }
  return p;
}

async function requestBytes(b) {
  if (b === null) return undefined;
  if (b.stream === null) return b.bytes;
  const { chunks, total } = await readChunks(b.stream.getReader(), (value) => {
    const u = typeof value === 'string' ? textEncoder.encode(value) : ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : value instanceof ArrayBuffer ? new Uint8Array(value) : null;
    if (u === null) throw new TypeError('fetch failed', { cause: new TypeError('Received non-Uint8Array chunk') });
    return u;
  });
  return concatChunks(chunks, total);
}

// readChunks reads a stream's reader to its end: its chunks, each made
// bytes by toBytes (which throws for a chunk it refuses), and their total
// length.
async function readChunks(reader, toBytes) {
  const chunks = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { chunks, total };
    const u = toBytes(value);
    chunks.push(u);
    total += u.byteLength;
  }
}

async function fetch(input, init = undefined) {
  const req = new Request(input, init);
  const r = req[kReq];
  const signal = r.own === null ? null : r.signal;
  if (signal !== null && signal.aborted) throw signal.reason;
  if (r.body !== null && (r.body.used || (r.body.stream !== null && streamStates.get(r.body.stream)?.disturbed))) throw unusable();
  const body = await requestBytes(r.body);
  if (r.body !== null) r.body.used = true;
  if (signal !== null && signal.aborted) throw signal.reason;
  const id = nextFetchId++;
  const pairs = [...r.headers]; // one line a name, as Node sends them (set-cookie apart)
  let stream = null;
  let done = false;
  const finish = () => { done = true; fetchOps.delete(id); stopListening(); };
  const stopListening = abortListen(signal, () => {
    if (done) return;
    host.fetchAbort(id);
    const op = fetchOps.get(id);
    finish();
    if (op !== undefined) op.reject(signal.reason);
    if (stream !== null) streamStates.get(stream).fail(signal.reason);
  });
  let head;
  try {
    head = await hostOp(id, () => {
      const fail = host.fetchStart(id, r.method, r.url, JSON.stringify(pairs), body, r.redirect, r.body !== null && r.body.stream !== null);
      if (fail !== undefined) {
        fetchOps.delete(id);
        throw fetchFailed(JSON.parse(fail));
      }
    });
  } catch (e) {
    finish();
    if ((signal !== null && e === signal.reason) || e instanceof Error) throw e;
    throw fetchFailed(e);
  }
  const headers = new Headers();
  headers[kList] = head.headers ?? [];
  headers[kGuard] = 'immutable';
  let b = null;
  if (nullBodyStatus(head.status) || r.method === 'HEAD') {
    host.fetchAbort(id);
    finish();
  } else {
    stream = new ReadableStream({
      pull(c) {
        return hostOp(id, () => {
          if (!host.fetchRead(id)) {
            fetchOps.delete(id);
            throw { message: `the body was dropped: more than MaxFetches fetches were open and this one was not being read`, code: 'ERR_DESK_FETCH_DROPPED' };
          }
        }).then((r) => {
          if (r === null) { finish(); c.close(); return; }
          c.enqueue(r.chunk);
          if (r.last) { finish(); c.close(); }
        }, (e) => {
          finish();
          c.error(e instanceof Error || (signal !== null && e === signal.reason) ? e : new TypeError('terminated', { cause: causeError(e) }));
        });
      },
      cancel() {
        if (done) return;
        host.fetchAbort(id);
        finish();
      },
    }, { highWaterMark: 0 });
    b = { stream, bytes: null, used: false };
  }
  const res = new Response(null);
  res[kRes] = { status: head.status, statusText: head.statusText, headers, type: 'basic', url: head.url, redirected: head.redirected, body: b };
  return res;
}

for (const [name, value] of Object.entries({
  AbortSignal, AbortController, ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController, Headers, Request, Response,
})) {
  if (globalThis[name] === undefined) defineGlobal(name, value);
}
defineGlobal('fetch', fetch);
}
