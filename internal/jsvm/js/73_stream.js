// node:stream basics (Readable, Writable, Duplex, Transform, PassThrough,
// pipeline, finished, Readable.from; stream/promises), the fs streams on
// file handles (createReadStream, createWriteStream) and node:readline's
// createInterface over a stream. A smaller machine than Node's: the same
// events and methods scripts use (data, end, finish, close, error, drain;
// pipe, async iteration, backpressure through write's return value), with
// callbacks run on process.nextTick as Node runs them.

// destroyStream is destroy(err) of a Readable or a Writable over its
// state st: once, with _destroy (when the stream has one) called first;
// 'error' (when there is one) and 'close' follow on the next tick.
function destroyStream(s, st, err) {
  if (st.destroyed) return s;
  st.destroyed = true;
  if (err) st.errored = err;
  const done = (e) => {
    process.nextTick(() => {
      if (e) s.emit('error', e);
      st.closed = true;
      if (s._emitClose !== false) s.emit('close');
    });
  };
  if (typeof s._destroy === 'function') s._destroy(err ?? null, (e) => done(e ?? err));
  else done(err);
  return s;
}

class Readable extends EventEmitter {
  constructor(options = {}) {
    super();
    this._readableState = {
      objectMode: !!(options.objectMode || options.readableObjectMode),
      highWaterMark: options.highWaterMark ?? options.readableHighWaterMark ?? (options.objectMode ? 16 : 65536),
      buffer: [], length: 0, ended: false, endEmitted: false, flowing: null, reading: false,
      encoding: null, destroyed: false, errored: null, closed: false, pipes: [], sync: false,
    };
    this.readable = true;
    if (typeof options.read === 'function') this._read = options.read;
    if (typeof options.destroy === 'function') this._destroy = options.destroy;
    if (options.encoding) this.setEncoding(options.encoding);
  }
  get readableEnded() { return this._readableState.endEmitted; }
  get readableFlowing() { return this._readableState.flowing; }
  get readableLength() { return this._readableState.length; }
  get readableObjectMode() { return this._readableState.objectMode; }
  get readableHighWaterMark() { return this._readableState.highWaterMark; }
  get destroyed() { return this._readableState.destroyed; }
  get closed() { return this._readableState.closed; }
  get errored() { return this._readableState.errored; }
  _read() { throw nodeError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', 'The _read() method is not implemented'); }
  setEncoding(enc) {
    this._readableState.encoding = normEncoding(enc);
    return this;
  }
  push(chunk, encoding) {
    const st = this._readableState;
    if (st.destroyed) return false;
    if (chunk === null) {
      st.ended = true;
      this.#maybeEnd();
      return false;
    }
    if (!st.objectMode) {
      if (typeof chunk === 'string') chunk = Buffer.from(chunk, encoding ?? 'utf8');
      else if (chunk instanceof Uint8Array && !Buffer.isBuffer(chunk)) chunk = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      else if (!Buffer.isBuffer(chunk)) {
        this.destroy(invalidArgType('chunk', 'of type string or an instance of Buffer or Uint8Array', chunk));
        return false;
      }
      if (st.encoding !== null) chunk = chunk.toString(st.encoding);
      if (chunk.length === 0) { st.reading = false; return true; }
    }
    st.reading = false;
    if (st.flowing && st.buffer.length === 0) {
      this.emit('data', chunk);
    } else {
      st.buffer.push(chunk);
      st.length += st.objectMode ? 1 : chunk.length;
      if (st.flowing) this.#flow();
      else if (this.listenerCount('readable') > 0) process.nextTick(() => this.emit('readable'));
    }
    this.#scheduleRead();
    return st.length < st.highWaterMark;
  }
  unshift(chunk) {
    const st = this._readableState;
    st.buffer.unshift(chunk);
    st.length += st.objectMode ? 1 : chunk.length;
  }
  #scheduleRead() {
    const st = this._readableState;
    if (st.reading || st.ended || st.destroyed || st.length >= st.highWaterMark) return;
    if (st.flowing === false) return;
    st.reading = true;
    process.nextTick(() => {
      if (st.destroyed || st.ended) { st.reading = false; return; }
      try {
        this._read(st.highWaterMark);
      } catch (e) {
        this.destroy(e);
      }
    });
  }
  #flow() {
    const st = this._readableState;
    while (st.flowing && st.buffer.length > 0) {
      const chunk = st.buffer.shift();
      st.length -= st.objectMode ? 1 : chunk.length;
      this.emit('data', chunk);
    }
    this.#maybeEnd();
    this.#scheduleRead();
  }
  #maybeEnd() {
    const st = this._readableState;
    if (st.ended && st.buffer.length === 0 && !st.endEmitted && (st.flowing || this.listenerCount('readable') > 0 || st.iterating)) {
      st.endEmitted = true;
      process.nextTick(() => {
        this.readable = false;
        this.emit('end');
        if (this._autoDestroy !== false) this.destroy();
      });
    } else if (st.ended && st.buffer.length === 0 && this.listenerCount('readable') > 0) {
      process.nextTick(() => this.emit('readable'));
    }
  }
  read(n) {
    const st = this._readableState;
    if (st.buffer.length === 0) {
      this.#scheduleRead();
      this.#maybeEnd();
      return null;
    }
    let chunk;
    if (st.objectMode || n === undefined) {
      if (st.objectMode) chunk = st.buffer.shift();
      else {
        chunk = st.encoding !== null ? st.buffer.join('') : Buffer.concat(st.buffer);
        st.buffer = [];
      }
    } else {
      const all = st.encoding !== null ? st.buffer.join('') : Buffer.concat(st.buffer);
      if (all.length < n && !st.ended) {
        st.buffer = [all];
        this.#scheduleRead();
        return null;
      }
      chunk = all.slice(0, n);
      st.buffer = all.length > n ? [all.slice(n)] : [];
    }
    st.length -= st.objectMode ? 1 : chunk.length;
    this.#scheduleRead();
    this.#maybeEnd();
    return chunk;
  }
  on(name, fn) {
    super.on(name, fn);
    const st = this._readableState;
    if (name === 'data' && st.flowing !== false) this.resume();
    if (name === 'readable') {
      this.#scheduleRead();
      if (st.buffer.length > 0 || st.ended) process.nextTick(() => { this.emit('readable'); this.#maybeEnd(); });
    }
    return this;
  }
  addListener(name, fn) { return this.on(name, fn); }
  once(name, fn) {
    const self = this;
    function wrapper(...args) { self.off(name, wrapper); return fn.apply(this, args); }
    wrapper.listener = fn;
    return this.on(name, wrapper);
  }
  resume() {
    const st = this._readableState;
    if (!st.flowing) {
      st.flowing = true;
      process.nextTick(() => {
        this.emit('resume');
        this.#flow();
      });
    }
    return this;
  }
  pause() {
    if (this._readableState.flowing !== false) {
      this._readableState.flowing = false;
      this.emit('pause');
    }
    return this;
  }
  isPaused() { return this._readableState.flowing === false; }
  pipe(dest, options = {}) {
    const st = this._readableState;
    st.pipes.push(dest);
    const onData = (chunk) => {
      if (dest.write(chunk) === false) {
        this.pause();
        dest.once('drain', () => this.resume());
      }
    };
    this.on('data', onData);
    if (options.end !== false) this.once('end', () => dest.end());
    dest.emit('pipe', this);
    return dest;
  }
  unpipe(dest) {
    this._readableState.pipes = this._readableState.pipes.filter((d) => d !== dest);
    this.removeAllListeners('data');
    return this;
  }
  destroy(err) { return destroyStream(this, this._readableState, err); }
  async *[Symbol.asyncIterator]() {
    const st = this._readableState;
    st.iterating = true;
    let error = null;
    let wake = null;
    const signal = () => { if (wake) { const w = wake; wake = null; w(); } };
    const onError = (e) => { error = e; signal(); };
    this.on('error', onError);
    this.on('readable', signal);
    this.on('end', signal);
    this.on('close', signal);
    try {
      for (;;) {
        if (error) throw error;
        const chunk = st.destroyed && st.buffer.length === 0 ? null : this.read();
        if (chunk !== null) {
          yield chunk;
          continue;
        }
        if (error) throw error;
        if ((st.ended && st.buffer.length === 0) || st.destroyed) return;
        await new Promise((res) => { wake = res; });
      }
    } finally {
      this.off('error', onError);
      this.off('readable', signal);
      if (!st.endEmitted) this.destroy();
    }
  }
  toArray() {
    return (async () => {
      const out = [];
      for await (const c of this) out.push(c);
      return out;
    })();
  }
  map(fn) {
    const src = this;
    return Readable.from((async function* () { for await (const c of src) yield await fn(c); })());
  }
  filter(fn) {
    const src = this;
    return Readable.from((async function* () { for await (const c of src) if (await fn(c)) yield c; })());
  }
  async forEach(fn) { for await (const c of this) await fn(c); }
  static from(iterable, options = {}) {
    if (typeof iterable === 'string' || Buffer.isBuffer(iterable)) {
      const r = new Readable({ objectMode: true, ...options, read() {} });
      r.push(iterable);
      r.push(null);
      return r;
    }
    const it = iterable?.[Symbol.asyncIterator]?.() ?? iterable?.[Symbol.iterator]?.();
    if (!it) throw invalidArgType('iterable', 'an instance of Iterable', iterable);
    let reading = false;
    const r = new Readable({
      objectMode: true,
      ...options,
      read() {
        if (reading) return;
        reading = true;
        (async () => {
          try {
            for (;;) {
              const { value, done } = await it.next();
              if (done) { r.push(null); break; }
              if (!r.push(await value)) break;
            }
          } catch (e) {
            r.destroy(e);
          } finally {
            reading = false;
          }
        })();
      },
    });
    return r;
  }
}

class Writable extends EventEmitter {
  constructor(options = {}) {
    super();
    this._writableState = {
      objectMode: !!(options.objectMode || options.writableObjectMode),
      highWaterMark: options.highWaterMark ?? options.writableHighWaterMark ?? (options.objectMode ? 16 : 16384),
      decodeStrings: options.decodeStrings !== false,
      defaultEncoding: options.defaultEncoding ?? 'utf8',
      queue: [], length: 0, writing: false, ending: false, ended: false, finished: false,
      destroyed: false, errored: null, closed: false, needDrain: false, pendingcb: 0,
    };
    this.writable = true;
    if (typeof options.write === 'function') this._write = options.write;
    if (typeof options.writev === 'function') this._writev = options.writev;
    if (typeof options.final === 'function') this._final = options.final;
    if (typeof options.destroy === 'function') this._destroy = options.destroy;
  }
  get writableEnded() { return this._writableState.ending; }
  get writableFinished() { return this._writableState.finished; }
  get writableLength() { return this._writableState.length; }
  get writableNeedDrain() { return this._writableState.needDrain; }
  get writableObjectMode() { return this._writableState.objectMode; }
  get writableHighWaterMark() { return this._writableState.highWaterMark; }
  get destroyed() { return this._writableState.destroyed; }
  get closed() { return this._writableState.closed; }
  _write(chunk, encoding, cb) {
    if (typeof this._writev === 'function') this._writev([{ chunk, encoding }], cb);
    else throw nodeError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', 'The _write() method is not implemented');
  }
  write(chunk, encoding, cb) {
    const st = this._writableState;
    if (typeof encoding === 'function') { cb = encoding; encoding = undefined; }
    encoding = encoding ?? st.defaultEncoding;
    if (st.ending) {
      const e = nodeError(Error, 'ERR_STREAM_WRITE_AFTER_END', 'write after end');
      process.nextTick(() => { if (cb) cb(e); this.emit('error', e); });
      return false;
    }
    if (st.destroyed) {
      const e = nodeError(Error, 'ERR_STREAM_DESTROYED', 'Cannot call write after a stream was destroyed');
      process.nextTick(() => { if (cb) cb(e); });
      return false;
    }
    if (chunk === null) throw nodeError(TypeError, 'ERR_STREAM_NULL_VALUES', 'May not write null values to stream');
    if (!st.objectMode) {
      if (typeof chunk === 'string') {
        if (st.decodeStrings) { chunk = Buffer.from(chunk, encoding); encoding = 'buffer'; }
      } else if (chunk instanceof Uint8Array) {
        if (!Buffer.isBuffer(chunk)) chunk = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        encoding = 'buffer';
      } else {
        throw invalidArgType('chunk', 'of type string or an instance of Buffer or Uint8Array', chunk);
      }
    }
    const len = st.objectMode ? 1 : chunk.length;
    st.length += len;
    const ret = st.length < st.highWaterMark;
    if (!ret) st.needDrain = true;
    st.queue.push({ chunk, encoding, cb, len });
    if (!st.writing) this.#next();
    return ret;
  }
  #next() {
    const st = this._writableState;
    const item = st.queue.shift();
    if (item === undefined) {
      if (st.needDrain && !st.ending) {
        st.needDrain = false;
        process.nextTick(() => this.emit('drain'));
      }
      if (st.ending) this.#finish();
      return;
    }
    st.writing = true;
    let sync = true;
    const after = (err) => {
      st.writing = false;
      st.length -= item.len;
      if (err) {
        process.nextTick(() => { if (item.cb) item.cb(err); });
        this.destroy(err);
        return;
      }
      const go = () => {
        if (item.cb) item.cb(null);
        this.#next();
      };
      if (sync) process.nextTick(go);
      else go();
    };
    try {
      this._write(item.chunk, item.encoding, after);
    } catch (e) {
      after(e);
    }
    sync = false;
  }
  #finish() {
    const st = this._writableState;
    if (st.finished || st.finishing || st.destroyed) return;
    st.finishing = true;
    const done = (err) => {
      if (err) { this.destroy(err); return; }
      process.nextTick(() => {
        st.finished = true;
        this.writable = false;
        this.emit('finish');
        if (this._autoDestroy !== false) this.destroy();
      });
    };
    if (typeof this._final === 'function') {
      try { this._final(done); } catch (e) { done(e); }
    } else {
      done();
    }
  }
  end(chunk, encoding, cb) {
    const st = this._writableState;
    if (typeof chunk === 'function') { cb = chunk; chunk = undefined; encoding = undefined; }
    if (typeof encoding === 'function') { cb = encoding; encoding = undefined; }
    if (chunk !== undefined && chunk !== null) this.write(chunk, encoding);
    if (cb) {
      if (st.finished) process.nextTick(cb);
      else this.once('finish', () => cb());
    }
    if (!st.ending) {
      st.ending = true;
      if (!st.writing && st.queue.length === 0) this.#finish();
    }
    return this;
  }
  cork() {}
  uncork() {}
  setDefaultEncoding(enc) { this._writableState.defaultEncoding = normEncoding(enc); return this; }
  destroy(err) { return destroyStream(this, this._writableState, err); }
}

// Duplex: a Readable whose writable side is a Writable writing into it
// (duplexWriter).
class Duplex extends Readable {
  constructor(options = {}) {
    super(options);
    this.writable = true;
    if (typeof options.write === 'function') this._write = options.write;
    if (typeof options.final === 'function') this._final = options.final;
    this._writerOptions = { objectMode: !!(options.objectMode || options.writableObjectMode), highWaterMark: options.writableHighWaterMark ?? options.highWaterMark };
    duplexWriter(this);
  }
}
for (const k of ['writableEnded', 'writableFinished', 'writableLength', 'writableNeedDrain', 'writableObjectMode', 'writableHighWaterMark']) {
  Object.defineProperty(Duplex.prototype, k, Object.getOwnPropertyDescriptor(Writable.prototype, k));
}

class Transform extends Duplex {
  constructor(options = {}) {
    super(options);
    if (typeof options.transform === 'function') this._transform = options.transform;
    if (typeof options.flush === 'function') this._flush = options.flush;
  }
  _read() {}
  _transform() { throw nodeError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', 'The _transform() method is not implemented'); }
}

class PassThrough extends Transform {
  _transform(chunk, encoding, cb) { cb(null, chunk); }
}

// The writable side of a Duplex: a Writable writing into the Duplex
// (_write, or _transform and push for a Transform).
const duplexWriters = new WeakMap();
function duplexWriter(d) {
  let w = duplexWriters.get(d);
  if (w) return w;
  w = new Writable({
    objectMode: d._writerOptions.objectMode,
    highWaterMark: d._writerOptions.highWaterMark,
    write(chunk, enc, cb) {
      if (!(d instanceof Transform)) return d._write(chunk, enc, cb);
      try {
        d._transform(chunk, enc, (err, data) => {
          if (err) { cb(err); return; }
          if (data !== undefined && data !== null) d.push(data);
          cb();
        });
      } catch (e) { cb(e); }
      return undefined;
    },
    final(cb) {
      const isTransform = d instanceof Transform;
      const end = (err) => {
        if (err) { cb(err); return; }
        if (isTransform) d.push(null);
        cb();
      };
      if (isTransform && typeof d._flush === 'function') {
        d._flush((err, data) => {
          if (data !== undefined && data !== null) d.push(data);
          end(err);
        });
      } else if (!isTransform && typeof d._final === 'function') {
        d._final(end);
      } else {
        end();
      }
    },
  });
  w._autoDestroy = false;
  w._emitClose = false;
  w.on('finish', () => d.emit('finish'));
  w.on('drain', () => d.emit('drain'));
  w.on('error', (e) => d.destroy(e));
  d._writableState = w._writableState;
  duplexWriters.set(d, w);
  return w;
}
Object.defineProperty(Duplex.prototype, 'write', {
  value(chunk, encoding, cb) { return duplexWriter(this).write(chunk, encoding, cb); },
  writable: true, configurable: true,
});
Object.defineProperty(Duplex.prototype, 'end', {
  value(chunk, encoding, cb) { duplexWriter(this).end(chunk, encoding, cb); return this; },
  writable: true, configurable: true,
});

function isReadableStream(s) { return s instanceof Readable || (s && typeof s.pipe === 'function' && typeof s.on === 'function' && typeof s.read === 'function'); }
function isWritableStream(s) { return s instanceof Writable || s instanceof Duplex || (s && typeof s.write === 'function' && typeof s.end === 'function'); }

function finished(stream, options, cb) {
  if (typeof options === 'function') { cb = options; options = {}; }
  validateFunction(cb, 'callback');
  let done = false;
  const call = (err) => {
    if (done) return;
    done = true;
    cleanup();
    cb(err ?? undefined);
  };
  const onEnd = () => call();
  const onFinish = () => { if (!isReadableStream(stream) || stream.readableEnded || stream instanceof Writable) call(); };
  const onError = (e) => call(e);
  const onClose = () => {
    if (stream.readableEnded || stream.writableFinished) call();
    else call(nodeError(Error, 'ERR_STREAM_PREMATURE_CLOSE', 'Premature close'));
  };
  stream.on('end', onEnd);
  stream.on('finish', onFinish);
  stream.on('error', onError);
  stream.on('close', onClose);
  const cleanup = () => {
    stream.off('end', onEnd);
    stream.off('finish', onFinish);
    stream.off('error', onError);
    stream.off('close', onClose);
  };
  return cleanup;
}

// pipeline(source, ...transforms, destination[, cb]): streams, iterables
// and async generator functions (source => iterable).
function pipelineImpl(streams) {
  return new Promise((resolve, reject) => {
    if (streams.length < 2) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "streams" argument must be specified');
    let current = streams[0];
    if (typeof current === 'function') current = current();
    if (!isReadableStream(current)) current = Readable.from(current);
    const all = [current];
    for (let i = 1; i < streams.length; i++) {
      let s = streams[i];
      if (typeof s === 'function') {
        const out = s(current);
        if (i === streams.length - 1 && out && typeof out.then === 'function') {
          out.then(resolve, reject);
          return;
        }
        s = Readable.from(out);
        current = s;
        all.push(s);
        continue;
      }
      current.pipe(s);
      current = s;
      all.push(s);
    }
    let settled = false;
    const fail = (e) => {
      if (settled) return;
      settled = true;
      for (const s of all) if (!s.destroyed) s.destroy();
      reject(e);
    };
    for (const s of all.slice(0, -1)) s.on('error', fail);
    const last = all[all.length - 1];
    finished(last, (err) => {
      if (err) fail(err);
      else if (!settled) { settled = true; resolve(); }
    });
  });
}

function pipeline(...streams) {
  const cb = typeof streams[streams.length - 1] === 'function' && !isReadableStream(streams[streams.length - 1]) && streams.length > 2 ? streams.pop() : undefined;
  if (cb === undefined) throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "callback" argument must be of type function. Received undefined');
  pipelineImpl(streams.flat()).then(() => cb(), (e) => cb(e));
  return streams[streams.length - 1];
}

const makeStreamPromisesModule = once(() => ({
  pipeline: (...streams) => pipelineImpl(streams.flat()),
  finished: (stream, options) => new Promise((res, rej) => finished(stream, options ?? {}, (e) => (e ? rej(e) : res()))),
}));

const makeStreamModule = once(() => {
  const Stream = function Stream() { EventEmitter.call?.(this); };
  Object.assign(Stream, {
    Readable, Writable, Duplex, Transform, PassThrough, Stream, pipeline, finished,
    promises: makeStreamPromisesModule(),
    isReadable: (s) => isReadableStream(s) && !s.destroyed && !s.readableEnded,
    isWritable: (s) => isWritableStream(s) && !s.destroyed && !s.writableEnded,
  });
  return Stream;
});

// fs streams.

// fsStreamFD takes an fs stream's options.fd (a descriptor or a
// FileHandle; none: the stream opens its path) and autoClose.
function fsStreamFD(s, options) {
  s._handle = options.fd instanceof FileHandle ? options.fd : null;
  s.fd = typeof options.fd === 'number' ? options.fd : s._handle ? s._handle.fd : null;
  s.autoClose = options.autoClose !== false;
}

// fsStreamClose closes an fs stream's descriptor when it is its to close.
function fsStreamClose(s) {
  if (s.fd !== null && s.autoClose) {
    try {
      if (s._handle) s._handle.close();
      else closeSync(s.fd);
    } catch { /* closed already */ }
    s.fd = null;
  }
}

class ReadStream extends Readable {
  constructor(path, options = {}) {
    super({ highWaterMark: options.highWaterMark ?? 65536, encoding: options.encoding ?? undefined });
    this.path = path;
    this.bytesRead = 0;
    this.pending = true;
    this.start = options.start;
    this.end = options.end ?? Infinity;
    this.pos = this.start ?? -1;
    this.flags = options.flags ?? 'r';
    if (options.start !== undefined) validateInteger(options.start, 'start', 0);
    if (options.end !== undefined && options.end !== Infinity) validateInteger(options.end, 'end', 0);
    if (options.start !== undefined && options.end !== undefined && options.start > options.end) {
      throw nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "start" is out of range. It must be <= "end" (here: ${options.end}). Received ${options.start}`);
    }
    fsStreamFD(this, options);
    if (this.fd === null) {
      setImmediate(() => {
        try {
          this.fd = openSync(path, this.flags, options.mode);
        } catch (e) {
          this.destroy(e);
          return;
        }
        this.pending = false;
        this.emit('open', this.fd);
        this.emit('ready');
      });
    } else {
      this.pending = false;
    }
  }
  _read(n) {
    if (this.fd === null) {
      this.once('ready', () => this._read(n));
      return;
    }
    let want = n;
    if (this.end !== Infinity) {
      const from = this.pos >= 0 ? this.pos : (this.start ?? 0) + this.bytesRead;
      want = Math.min(n, this.end - from + 1);
    }
    if (want <= 0) { this.push(null); return; }
    let ab;
    try {
      ab = host.fsReadFD(this.fd, want, this.pos);
    } catch (e) {
      this.destroy(e);
      return;
    }
    if (ab.byteLength === 0) { setImmediate(() => this.push(null)); return; }
    if (this.pos >= 0) this.pos += ab.byteLength;
    this.bytesRead += ab.byteLength;
    setImmediate(() => this.push(new FastBuffer(ab)));
  }
  _destroy(err, cb) { fsStreamClose(this); cb(err); }
  close(cb) {
    if (cb) this.once('close', cb);
    this.destroy();
  }
}

class WriteStream extends Writable {
  constructor(path, options = {}) {
    super({ highWaterMark: options.highWaterMark ?? 16384, defaultEncoding: options.encoding ?? 'utf8' });
    this.path = path;
    this.bytesWritten = 0;
    this.pending = true;
    this.flags = options.flags ?? 'w';
    this.start = options.start;
    this.pos = options.start ?? -1;
    fsStreamFD(this, options);
    if (this.fd === null) {
      // Opened at once (the file exists when createWriteStream returns, as
      // it does soon after in Node); errors are emitted on the next tick.
      try {
        this.fd = openSync(path, this.flags, options.mode);
        this.pending = false;
        setImmediate(() => { this.emit('open', this.fd); this.emit('ready'); });
      } catch (e) {
        setImmediate(() => this.destroy(e));
      }
    } else {
      this.pending = false;
    }
  }
  _write(chunk, encoding, cb) {
    try {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
      if (this.fd === null) {
        this.once('ready', () => this._write(chunk, encoding, cb));
        return;
      }
      const n = host.fsWriteFD(this.fd, bytes, this.pos);
      if (this.pos >= 0) this.pos += n;
      this.bytesWritten += n;
    } catch (e) {
      setImmediate(cb, e);
      return;
    }
    setImmediate(cb);
  }
  _destroy(err, cb) { fsStreamClose(this); cb(err); }
  close(cb) {
    if (cb) this.once('close', cb);
    if (!this.writableEnded) this.end();
    else if (!this.destroyed) this.destroy();
  }
}

function createReadStream(path, options) {
  const o = fsOptions(options, {});
  return new ReadStream(o.fd !== undefined && o.fd !== null ? path : toPath(path), o);
}

function createWriteStream(path, options) {
  const o = fsOptions(options, {});
  return new WriteStream(o.fd !== undefined && o.fd !== null ? path : toPath(path), o);
}

// node:readline: createInterface over a readable stream (lines as 'line'
// events and async iteration), question() on process.stdin.
class Interface extends EventEmitter {
  #buf = '';
  #lines = [];
  #closed = false;
  #waiters = [];
  #paused = false;
  constructor(input, output, crlfDelay) {
    super();
    if (input !== null && typeof input === 'object' && !isReadableStream(input) && input.input !== undefined) {
      ({ input, output, crlfDelay } = input);
    }
    this.input = input;
    this.output = output;
    this.terminal = false;
    this.line = '';
    if (input && typeof input.on === 'function') {
      if (typeof input.setEncoding === 'function' && input !== makeProcess().stdin) input.setEncoding('utf8');
      else if (input === makeProcess().stdin) input.setEncoding('utf8');
      input.on('data', (chunk) => this.#feed(typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
      input.on('end', () => this.#end());
      input.on('error', (e) => this.emit('error', e));
    }
  }
  #feed(s) {
    this.#buf += s;
    const parts = this.#buf.split(/\r\n|\n|\r(?!$)/);
    this.#buf = parts.pop();
    for (const l of parts) this.#emitLine(l);
  }
  #emitLine(l) {
    if (this.iterating) {
      if (this.#waiters.length > 0) this.#waiters.shift()({ value: l, done: false });
      else this.#lines.push(l);
    }
    this.emit('line', l);
  }
  #end() {
    if (this.#buf !== '') {
      const l = this.#buf.replace(/\r$/, '');
      this.#buf = '';
      this.#emitLine(l);
    }
    this.close();
  }
  close() {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of this.#waiters.splice(0)) w({ value: undefined, done: true });
    this.emit('close');
  }
  pause() { this.#paused = true; this.input?.pause?.(); this.emit('pause'); return this; }
  resume() { this.#paused = false; this.input?.resume?.(); this.emit('resume'); return this; }
  setPrompt(p) { this._prompt = p; }
  getPrompt() { return this._prompt ?? '> '; }
  prompt() { this.output?.write?.(this.getPrompt()); }
  write(d) { this.output?.write?.(d); }
  question(query, options, cb) {
    if (typeof options === 'function') cb = options;
    this.output?.write?.(query);
    const onLine = (l) => { this.off('line', onLine); cb(l); };
    this.on('line', onLine);
  }
  [Symbol.asyncIterator]() {
    this.iterating = true;
    const self = this;
    return {
      next() {
        if (self.#lines.length > 0) return Promise.resolve({ value: self.#lines.shift(), done: false });
        if (self.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((res) => self.#waiters.push(res));
      },
      return() { self.close(); return Promise.resolve({ value: undefined, done: true }); },
      [Symbol.asyncIterator]() { return this; },
    };
  }
}

const makeReadlineModule = once(() => ({
  createInterface: (input, output, completer, terminal) => new Interface(input, output),
  Interface,
  clearLine: (stream, dir, cb) => { if (cb) process.nextTick(cb); return true; },
  clearScreenDown: (stream, cb) => { if (cb) process.nextTick(cb); return true; },
  cursorTo: (stream, x, y, cb) => { if (typeof y === 'function') y(); else if (cb) process.nextTick(cb); return true; },
  moveCursor: (stream, dx, dy, cb) => { if (cb) process.nextTick(cb); return true; },
  emitKeypressEvents: () => {},
}));

const makeReadlinePromisesModule = once(() => ({
  createInterface: (input, output) => {
    const rl = new Interface(input, output);
    const question = rl.question.bind(rl);
    rl.question = (q) => new Promise((res) => question(q, res));
    return rl;
  },
  Interface,
}));
