// File handles (fs.open, FileHandle), directories (opendir, Dir), fs.cp,
// and the streams made on handles (createReadStream, createWriteStream).
// A handle is the host's (host.fsOpen): reads and writes go to the store
// through it, counted as every fs call is.

function openFlagsArg(flags, def) {
  return checkFlag(flags === undefined || flags === null ? def : flags, def);
}

function fdArg(fd) {
  validateInteger(fd, 'fd', 0, 2147483647);
  return fd;
}

function openSync(path, flags, mode) {
  const p = toPath(path);
  return host.fsOpen(p, openFlagsArg(flags, 'r'), parseMode(mode, 'mode', 0o666));
}

function closeSync(fd) { host.fsClose(fdArg(fd)); }

// readSync(fd, buffer, offset, length, position) or (fd, buffer, {offset,
// length, position}).
function readSync(fd, buffer, offsetOrOptions, length, position) {
  fdArg(fd);
  if (!ArrayBuffer.isView(buffer)) throw invalidArgType('buffer', 'an instance of Buffer, TypedArray, or DataView', buffer);
  let offset = offsetOrOptions;
  if (offsetOrOptions !== null && typeof offsetOrOptions === 'object') {
    ({ offset = 0, length = buffer.byteLength - offset, position = null } = offsetOrOptions);
  }
  offset ??= 0;
  length ??= buffer.byteLength - offset;
  validateInteger(offset, 'offset', 0, buffer.byteLength);
  validateInteger(length, 'length', 0, buffer.byteLength - offset);
  const pos = position === null || position === undefined || position === -1 ? -1 : Number(position);
  const ab = host.fsReadFD(fd, length, pos);
  const view = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, ab.byteLength);
  view.set(new Uint8Array(ab));
  return ab.byteLength;
}

// writeSync(fd, buffer, offset, length, position) or (fd, string,
// position, encoding).
function writeSync(fd, data, a, b, c) {
  fdArg(fd);
  let bytes;
  let position = -1;
  if (typeof data === 'string') {
    bytes = dataBytes(data, normEncoding(b ?? 'utf8'));
    if (typeof bytes === 'string') bytes = new Uint8Array(host.encode(bytes, 'utf8'));
    if (typeof a === 'number') position = a;
  } else if (ArrayBuffer.isView(data)) {
    let offset = a, length = b;
    position = c;
    if (a !== null && typeof a === 'object') ({ offset = 0, length, position } = a);
    offset ??= 0;
    const all = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    length ??= all.byteLength - offset;
    bytes = all.subarray(offset, offset + length);
    if (position === null || position === undefined) position = -1;
  } else {
    throw invalidArgType('buffer', 'of type string or an instance of Buffer, TypedArray, or DataView', data);
  }
  return host.fsWriteFD(fd, bytes, position);
}

function fstatSync(fd, options) {
  statOptions(options);
  return new Stats(host.fsFstat(fdArg(fd)));
}

function ftruncateSync(fd, len = 0) {
  validateInteger(len, 'len');
  host.fsFtruncate(fdArg(fd), Math.max(0, len));
}

// readAllFD reads what is left of fd from position (-1: its offset).
function readAllFD(fd, position = -1) {
  const parts = [];
  let pos = position;
  for (;;) {
    const ab = host.fsReadFD(fd, 65536, pos);
    if (ab.byteLength === 0) break;
    parts.push(new FastBuffer(ab));
    if (pos >= 0) pos += ab.byteLength;
  }
  return Buffer.concat(parts);
}

const kFd = Symbol('fd');

class FileHandle extends EventEmitter {
  constructor(fd) {
    super();
    this[kFd] = fd;
  }
  get fd() { return this[kFd]; }
  #check() {
    if (this[kFd] === -1) {
      const e = nodeError(Error, 'EBADF', 'file closed');
      e.errno = -9;
      e.syscall = 'read';
      throw e;
    }
    return this[kFd];
  }
  async close() {
    if (this[kFd] === -1) return;
    const fd = this[kFd];
    this[kFd] = -1;
    host.fsClose(fd);
    this.emit('close');
  }
  async [Symbol.asyncDispose]() { return this.close(); }
  async read(buffer, offset, length, position) {
    const fd = this.#check();
    if (buffer === undefined || (buffer !== null && typeof buffer === 'object' && !ArrayBuffer.isView(buffer))) {
      const o = buffer ?? {};
      buffer = o.buffer ?? Buffer.alloc(16384);
      ({ offset = 0, length = buffer.byteLength - offset, position = null } = o);
    }
    if (offset !== null && typeof offset === 'object') ({ offset = 0, length = buffer.byteLength - offset, position = null } = offset);
    const bytesRead = readSync(fd, buffer, offset ?? 0, length ?? buffer.byteLength - (offset ?? 0), position);
    return { bytesRead, buffer };
  }
  async readFile(options) {
    const fd = this.#check();
    const o = fsOptions(options, {});
    const enc = checkEncoding(o.encoding);
    const b = readAllFD(fd);
    return enc === null ? b : b.toString(enc);
  }
  async write(data, a, b, c) {
    const fd = this.#check();
    const bytesWritten = writeSync(fd, data, a, b, c);
    return { bytesWritten, buffer: data };
  }
  async writeFile(data, options) {
    const fd = this.#check();
    const o = fsOptions(options, { encoding: 'utf8' });
    if (isIterableData(data)) data = await collect(data, checkEncoding(o.encoding) ?? 'utf8');
    let bytes = dataBytes(data, checkEncoding(o.encoding) ?? 'utf8');
    if (typeof bytes === 'string') bytes = new Uint8Array(host.encode(bytes, 'utf8'));
    host.fsWriteFD(fd, bytes, -1);
  }
  async appendFile(data, options) { return this.writeFile(data, options); }
  async stat(options) { return fstatSync(this.#check(), options); }
  async truncate(len = 0) { return ftruncateSync(this.#check(), len); }
  async sync() { this.#check(); }
  async datasync() { this.#check(); }
  async chmod() { this.#check(); throw nodeError(Error, 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM', 'filehandle.chmod is not available in the js backend: use fs.chmod'); }
  readLines(options) {
    return makeReadlineModule().createInterface({ input: this.createReadStream(options), crlfDelay: Infinity });
  }
  createReadStream(options) { return createReadStream(null, { ...fsOptions(options, {}), fd: this }); }
  createWriteStream(options) { return createWriteStream(null, { ...fsOptions(options, {}), fd: this }); }
  [kCustomInspect]() { return `FileHandle {\n  close: [Function: close],\n  fd: ${this[kFd]}\n}`; }
}

async function openPromise(path, flags, mode) {
  return new FileHandle(openSync(path, flags, mode));
}

// Dir (opendir): the entries are read when the directory is opened, in
// the order readdir gives them.
class Dir {
  #entries;
  #closed = false;
  constructor(path, entries) {
    this.path = path;
    this.#entries = entries;
  }
  #check() {
    if (this.#closed) throw nodeError(Error, 'ERR_DIR_CLOSED', 'Directory handle was closed');
  }
  readSync() {
    this.#check();
    return this.#entries.shift() ?? null;
  }
  async read(cb) {
    if (typeof cb === 'function') {
      let r;
      try { r = this.readSync(); } catch (e) { setImmediate(cb, e); return undefined; }
      setImmediate(cb, null, r);
      return undefined;
    }
    return this.readSync();
  }
  closeSync() {
    this.#check();
    this.#closed = true;
  }
  async close(cb) {
    if (typeof cb === 'function') {
      try { this.closeSync(); } catch (e) { setImmediate(cb, e); return undefined; }
      setImmediate(cb, null);
      return undefined;
    }
    return this.closeSync();
  }
  async *entries() {
    try {
      for (let e = this.readSync(); e !== null; e = this.readSync()) yield e;
    } finally {
      if (!this.#closed) this.closeSync();
    }
  }
  [Symbol.asyncIterator]() { return this.entries(); }
}

function opendirSync(path, options) {
  const o = fsOptions(options, { encoding: 'utf8' });
  const p = toPath(path);
  let entries;
  try {
    entries = readdirSync(p, { encoding: o.encoding, withFileTypes: true, recursive: !!o.recursive });
  } catch (e) {
    if (e.syscall === 'scandir') {
      e.syscall = 'opendir';
      e.message = e.message.replace(', scandir ', ', opendir ');
    }
    throw e;
  }
  return new Dir(p, entries);
}

// cp: fs.cp/cpSync/promises.cp, as Node's (lib/internal/fs/cp): files,
// directories with recursive, symlinks copied as links (verbatimSymlinks
// keeps their targets as they are; otherwise relative targets are made
// absolute, as Node does), force, errorOnExist, filter, preserveTimestamps.
function cpOptions(options) {
  const o = { dereference: false, errorOnExist: false, force: true, preserveTimestamps: false, recursive: false, verbatimSymlinks: false, mode: 0, ...(options ?? {}) };
  if (o.filter !== undefined) validateFunction(o.filter, 'options.filter');
  return o;
}

function cpError(code, message, path) {
  const e = nodeError(Error, code, message);
  e.errno = { ERR_FS_EISDIR: 21, ERR_FS_CP_EEXIST: 17, ERR_FS_CP_EINVAL: 22, ERR_FS_CP_DIR_TO_NON_DIR: 21, ERR_FS_CP_NON_DIR_TO_DIR: 20 }[code] ?? 22;
  e.syscall = 'cp';
  e.path = path;
  e.info = undefined;
  delete e.info;
  return e;
}

function cpSyncImpl(src, dest, o) {
  const srcStat = o.dereference ? statSync(src) : lstatSync(src);
  const destStat = statSync(dest, { throwIfNoEntry: false }) ?? lstatSync(dest, { throwIfNoEntry: false });
  if (destStat && srcStat.ino === destStat.ino && srcStat.dev === destStat.dev) {
    throw cpError('ERR_FS_CP_EINVAL', `Invalid src or dest: cp returned EINVAL (src and dest cannot be the same) ${dest}`, dest);
  }
  if (srcStat.isDirectory() && !o.recursive) {
    throw cpError('ERR_FS_EISDIR', `Recursive option is required to copy a directory: cp returned EISDIR (${src} is a directory (not copied)) ${src}`, src);
  }
  if (destStat) {
    if (srcStat.isDirectory() && !destStat.isDirectory()) {
      throw cpError('ERR_FS_CP_DIR_TO_NON_DIR', `Cannot overwrite non-directory with directory: cp returned EISDIR (cannot overwrite non-directory ${dest} with directory ${src}) ${dest}`, dest);
    }
    if (!srcStat.isDirectory() && destStat.isDirectory()) {
      throw cpError('ERR_FS_CP_NON_DIR_TO_DIR', `Cannot overwrite directory with non-directory: cp returned ENOTDIR (cannot overwrite directory ${dest} with non-directory ${src}) ${dest}`, dest);
    }
  }
  const srcAbs = posix.resolve(src);
  const destAbs = posix.resolve(dest);
  if (srcStat.isDirectory() && (destAbs + '/').startsWith(srcAbs + '/')) {
    throw cpError('ERR_FS_CP_EINVAL', `Invalid src or dest: cp returned EINVAL (cannot copy ${src} to a subdirectory of self ${dest}) ${dest}`, dest);
  }
  if (!destStat) mkdirSync(posix.dirname(dest), { recursive: true });
  copyEntry(src, dest, srcStat, destStat, o);
}

function copyEntry(src, dest, srcStat, destStat, o) {
  if (o.filter && !o.filter(src, dest)) return;
  if (srcStat.isDirectory()) {
    if (!destStat) mkdirSync(dest, { mode: srcStat.mode & 0o7777 });
    for (const name of readdirSync(src)) {
      const s = posix.join(src, name);
      const d = posix.join(dest, name);
      const st = o.dereference ? statSync(s) : lstatSync(s);
      const dt = lstatSync(d, { throwIfNoEntry: false });
      if (dt && st.isDirectory() && !dt.isDirectory()) {
        throw cpError('ERR_FS_CP_DIR_TO_NON_DIR', `Cannot overwrite non-directory with directory: cp returned EISDIR (cannot overwrite non-directory ${d} with directory ${s}) ${d}`, d);
      }
      copyEntry(s, d, st, dt, o);
    }
    if (!destStat) chmodSync(dest, srcStat.mode & 0o7777);
  } else if (srcStat.isSymbolicLink()) {
    let target = readlinkSync(src);
    if (!o.verbatimSymlinks && !posix.isAbsolute(target)) target = posix.resolve(posix.dirname(src), target);
    if (destStat) {
      if (!o.force) {
        if (o.errorOnExist) throw cpError('ERR_FS_CP_EEXIST', `Target already exists: cp returned EEXIST (${dest} already exists) ${dest}`, dest);
        return;
      }
      unlinkSync(dest);
    }
    symlinkSync(target, dest);
  } else if (srcStat.isFile()) {
    if (destStat) {
      if (!o.force) {
        if (o.errorOnExist) throw cpError('ERR_FS_CP_EEXIST', `Target already exists: cp returned EEXIST (${dest} already exists) ${dest}`, dest);
        return;
      }
    }
    copyFileSync(src, dest, o.mode);
    if (o.preserveTimestamps) utimesSync(dest, srcStat.atime, srcStat.mtime);
  } else {
    throw cpError('ERR_FS_CP_UNKNOWN', `Cannot copy an unknown file type: cp returned EINVAL (${src}) ${src}`, src);
  }
}

function cpSync(src, dest, options) {
  const o = cpOptions(options);
  cpSyncImpl(toPath(src, 'src'), toPath(dest, 'dest'), o);
}

async function cpPromise(src, dest, options) {
  const o = cpOptions(options);
  if (o.filter) {
    // The filter may be async: resolve it as we go.
    const filter = o.filter;
    const decisions = [];
    const walk = async (s, d) => {
      const ok = await filter(s, d);
      decisions.push([s, ok]);
      if (!ok) return;
      const st = o.dereference ? statSync(s) : lstatSync(s);
      if (st.isDirectory()) for (const name of readdirSync(s)) await walk(posix.join(s, name), posix.join(d, name));
    };
    await walk(toPath(src, 'src'), toPath(dest, 'dest'));
    const m = new Map(decisions);
    o.filter = (s) => m.get(s) === true;
  }
  cpSyncImpl(toPath(src, 'src'), toPath(dest, 'dest'), o);
}

// addFsHandles fills in node:fs's handle functions.
function addFsHandles(fsm) {
  const sync = { openSync, closeSync, readSync, writeSync, fstatSync, ftruncateSync, opendirSync, cpSync };
  Object.assign(fsm, sync);
  for (const [name, fn] of Object.entries(sync)) {
    const cbName = name.slice(0, -4);
    if (cbName === 'read' || cbName === 'write') continue;
    fsm[cbName] = callbackify2(fn);
  }
  fsm.read = function read(fd, buffer, ...rest) {
    const cb = rest.pop();
    validateFunction(cb, 'cb');
    let n;
    try { n = readSync(fd, buffer, ...rest); } catch (e) { setImmediate(cb, e); return; }
    setImmediate(cb, null, n, buffer);
  };
  fsm.write = function write(fd, data, ...rest) {
    const cb = rest.pop();
    validateFunction(cb, 'cb');
    let n;
    try { n = writeSync(fd, data, ...rest); } catch (e) { setImmediate(cb, e); return; }
    setImmediate(cb, null, n, data);
  };
  fsm.cp = (src, dest, options, cb) => {
    if (typeof options === 'function') { cb = options; options = undefined; }
    validateFunction(cb, 'cb');
    cpPromise(src, dest, options).then(() => cb(null), (e) => cb(e));
  };
  fsm.createReadStream = createReadStream;
  fsm.createWriteStream = createWriteStream;
  fsm.ReadStream = ReadStream;
  fsm.WriteStream = WriteStream;
  fsm.Dir = Dir;
}

function addFsPromisesHandles(fsp) {
  fsp.open = openPromise;
  fsp.opendir = async (path, options) => opendirSync(path, options);
  fsp.cp = cpPromise;
  fsp.FileHandle = FileHandle;
}
