// node:fs/promises and node:fs on the workspace. The host does the work
// (host.fs*); these wrappers check arguments as Node does and shape results
// (Buffer, Stats, Dirent). The sync functions and the promise functions
// share the host calls; callback forms run on top of the promises.

const fsConstants = Object.freeze({
  UV_FS_SYMLINK_DIR: 1, UV_FS_SYMLINK_JUNCTION: 2, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2,
  UV_DIRENT_UNKNOWN: 0, UV_DIRENT_FILE: 1, UV_DIRENT_DIR: 2, UV_DIRENT_LINK: 3, UV_DIRENT_FIFO: 4,
  UV_DIRENT_SOCKET: 5, UV_DIRENT_CHAR: 6, UV_DIRENT_BLOCK: 7, S_IFMT: 61440, S_IFREG: 32768,
  S_IFDIR: 16384, S_IFCHR: 8192, S_IFBLK: 24576, S_IFIFO: 4096, S_IFLNK: 40960, S_IFSOCK: 49152,
  O_CREAT: 64, O_EXCL: 128, UV_FS_O_FILEMAP: 0, O_NOCTTY: 256, O_TRUNC: 512, O_APPEND: 1024,
  O_DIRECTORY: 65536, O_NOATIME: 262144, O_NOFOLLOW: 131072, O_SYNC: 1052672, O_DSYNC: 4096,
  O_DIRECT: 16384, O_NONBLOCK: 2048, S_IRWXU: 448, S_IRUSR: 256, S_IWUSR: 128, S_IXUSR: 64,
  S_IRWXG: 56, S_IRGRP: 32, S_IWGRP: 16, S_IXGRP: 8, S_IRWXO: 7, S_IROTH: 4, S_IWOTH: 2, S_IXOTH: 1,
  F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, UV_FS_COPYFILE_EXCL: 1, COPYFILE_EXCL: 1,
  UV_FS_COPYFILE_FICLONE: 2, COPYFILE_FICLONE: 2, UV_FS_COPYFILE_FICLONE_FORCE: 4, COPYFILE_FICLONE_FORCE: 4,
});

function toPath(p, name = 'path') {
  if (typeof p === 'string') {
    // fall through
  } else if (p instanceof Uint8Array) {
    p = host.decode(p, 'utf8');
  } else if (p instanceof URL) {
    p = fileURLToPath(p);
  } else {
    throw invalidArgType(name, 'of type string or an instance of Buffer or URL', p);
  }
  if (p.includes('\u0000')) {
    throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE',
      `The argument '${name}' must be a string, Uint8Array, or URL without null bytes. Received ${inspect(p)}`);
  }
  return p;
}

function fsOptions(options, defaults) {
  if (options === null || options === undefined || typeof options === 'function') return { ...defaults };
  if (typeof options === 'string') return { ...defaults, encoding: options };
  if (typeof options !== 'object') throw invalidArgType('options', 'one of type string or an instance of Object', options);
  const o = { ...defaults };
  for (const k of Object.keys(options)) if (options[k] !== undefined) o[k] = options[k];
  return o;
}

function checkEncoding(enc) {
  if (enc === undefined || enc === null || enc === 'buffer') return null;
  if (!Buffer.isEncoding(enc)) {
    throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument 'encoding' is invalid encoding. Received ${inspect(enc)}`);
  }
  return normEncoding(enc);
}

function parseMode(mode, name, def) {
  if (mode === undefined || mode === null) return def;
  if (typeof mode === 'string') {
    if (!/^[0-7]+$/.test(mode)) throw invalidArgValue(name, mode, 'must be a 32-bit unsigned integer or an octal string');
    return parseInt(mode, 8);
  }
  validateInteger(mode, name, 0, 4294967295);
  return mode;
}

function checkFlag(flag, def) {
  if (flag === undefined || flag === null) return def;
  if (typeof flag === 'number') return flag;
  const ok = ['r', 'rs', 'sr', 'r+', 'rs+', 'sr+', 'w', 'wx', 'xw', 'w+', 'wx+', 'xw+', 'a', 'ax', 'xa', 'as', 'sa', 'a+', 'ax+', 'xa+', 'as+', 'sa+'];
  if (!ok.includes(flag)) throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument 'flags' is invalid. Received ${inspect(flag)}`);
  return flag;
}


function readFileSync(path, options) {
  const o = fsOptions(options, { flag: 'r' });
  const p = toPath(path);
  const enc = checkEncoding(o.encoding);
  const flag = checkFlag(o.flag, 'r');
  if (enc === 'utf8') return host.fsReadText(p, flag);
  const b = new FastBuffer(host.fsRead(p, flag));
  return enc === null ? b : b.toString(enc);
}

function dataBytes(data, enc, name = 'data') {
  if (typeof data === 'string') return enc === 'utf8' ? data : new Uint8Array(host.encode(data, enc));
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw invalidArgType(name, 'of type string or an instance of Buffer, TypedArray, or DataView', data);
}

function writeFileSync(path, data, options, defFlag = 'w') {
  const o = fsOptions(options, { encoding: 'utf8', mode: 0o666, flag: defFlag });
  const p = toPath(path, 'path');
  const enc = checkEncoding(o.encoding) ?? 'utf8';
  const flag = checkFlag(o.flag, defFlag);
  const mode = parseMode(o.mode, 'mode', 0o666);
  host.fsWrite(p, dataBytes(data, enc), flag, mode);
}

async function collect(data, enc) {
  const parts = [];
  for await (const chunk of data) {
    if (typeof chunk === 'string') parts.push(new Uint8Array(host.encode(chunk, enc)));
    else if (ArrayBuffer.isView(chunk)) parts.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    else throw invalidArgType('data', 'of type string or an instance of Buffer, TypedArray, or DataView', chunk);
  }
  return Buffer.concat(parts);
}

function isIterableData(data) {
  return typeof data === 'object' && data !== null && !ArrayBuffer.isView(data) &&
    (typeof data[Symbol.iterator] === 'function' || typeof data[Symbol.asyncIterator] === 'function');
}

function mkdirSync(path, options) {
  let recursive = false;
  let mode = 0o777;
  if (typeof options === 'number' || typeof options === 'string') {
    mode = parseMode(options, 'mode', 0o777);
  } else if (options !== undefined && options !== null) {
    validateObject(options, 'options');
    if (options.recursive !== undefined) {
      if (typeof options.recursive !== 'boolean') throw invalidArgType('options.recursive', 'of type boolean', options.recursive);
      recursive = options.recursive;
    }
    mode = parseMode(options.mode, 'mode', 0o777);
  }
  const r = host.fsMkdir(toPath(path), recursive, mode);
  return r === null ? undefined : r;
}

const kType = Symbol('type');

class Dirent {
  constructor(name, type, path) {
    this.name = name;
    this.parentPath = path;
    this.path = path;
    this[kType] = type;
  }
  isFile() { return this[kType] === 1; }
  isDirectory() { return this[kType] === 2; }
  isSymbolicLink() { return this[kType] === 3; }
  isFIFO() { return this[kType] === 4; }
  isSocket() { return this[kType] === 5; }
  isCharacterDevice() { return this[kType] === 6; }
  isBlockDevice() { return this[kType] === 7; }
}

function readdirSync(path, options) {
  const o = fsOptions(options, { encoding: 'utf8', withFileTypes: false, recursive: false });
  const p = toPath(path);
  const enc = checkEncoding(o.encoding);
  const encode = (name) => (enc === 'utf8' ? name : enc === null ? Buffer.from(name) : Buffer.from(name).toString(enc));
  const [names, types] = host.fsReaddir(p);
  if (!o.recursive) {
    if (o.withFileTypes) return names.map((n, i) => new Dirent(encode(n), types[i], p));
    return names.map(encode);
  }
  const out = [];
  const queue = [[p, '', names, types]];
  while (queue.length) {
    const [dir, rel, ns, ts] = queue.shift();
    for (let i = 0; i < ns.length; i++) {
      const relName = rel === '' ? ns[i] : `${rel}/${ns[i]}`;
      if (o.withFileTypes) out.push(new Dirent(encode(ns[i]), ts[i], dir));
      else out.push(encode(relName));
      if (ts[i] === 2) {
        const sub = `${dir}/${ns[i]}`;
        const [n2, t2] = host.fsReaddir(sub);
        queue.push([sub, relName, n2, t2]);
      }
    }
  }
  return out;
}

class Stats {
  constructor(a) {
    [this.dev, this.mode, this.nlink, this.uid, this.gid, this.rdev, this.blksize, this.ino, this.size, this.blocks,
      this.atimeMs, this.mtimeMs, this.ctimeMs, this.birthtimeMs] = a;
    this.atime = new Date(Math.floor(this.atimeMs));
    this.mtime = new Date(Math.floor(this.mtimeMs));
    this.ctime = new Date(Math.floor(this.ctimeMs));
    this.birthtime = new Date(Math.floor(this.birthtimeMs));
  }
  #type() { return this.mode & 0o170000; }
  isFile() { return this.#type() === 0o100000; }
  isDirectory() { return this.#type() === 0o040000; }
  isSymbolicLink() { return this.#type() === 0o120000; }
  isFIFO() { return this.#type() === 0o010000; }
  isSocket() { return this.#type() === 0o140000; }
  isCharacterDevice() { return this.#type() === 0o020000; }
  isBlockDevice() { return this.#type() === 0o060000; }
}

function statOptions(options) {
  const o = fsOptions(options, { bigint: false, throwIfNoEntry: true });
  if (o.bigint) throw nodeError(Error, 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM', 'bigint stats are not available in the js backend');
  return o;
}

function statSync(path, options) {
  const o = statOptions(options);
  const a = host.fsStat(toPath(path), true, o.throwIfNoEntry !== false);
  return a === null ? undefined : new Stats(a);
}

function lstatSync(path, options) {
  const o = statOptions(options);
  const a = host.fsStat(toPath(path), false, o.throwIfNoEntry !== false);
  return a === null ? undefined : new Stats(a);
}

function rmSync(path, options) {
  const o = fsOptions(options, { recursive: false, force: false });
  if (typeof o.recursive !== 'boolean') throw invalidArgType('options.recursive', 'of type boolean', o.recursive);
  if (typeof o.force !== 'boolean') throw invalidArgType('options.force', 'of type boolean', o.force);
  host.fsRm(toPath(path), o.recursive, o.force);
}

function rmdirSync(path, options) {
  const o = fsOptions(options, { recursive: false });
  if (o.recursive) return rmSync(path, { recursive: true, force: false });
  host.fsRmdir(toPath(path));
}

function unlinkSync(path) { host.fsUnlink(toPath(path)); }

function renameSync(from, to) { host.fsRename(toPath(from, 'oldPath'), toPath(to, 'newPath')); }

// validateMode checks the mode of copyFile and access as Node does (a
// RangeError with a code, whose message does not show the code).
function validateMode(mode) {
  if (typeof mode !== 'number') throw invalidArgType('mode', 'of type number', mode);
  if (!Number.isInteger(mode) || mode < 0 || mode > 7) {
    const e = new RangeError('mode is out of range: >= 0 && <= 7');
    e.code = 'ERR_OUT_OF_RANGE';
    throw e;
  }
}

function copyFileSync(src, dest, mode = 0) {
  validateMode(mode);
  host.fsCopyFile(toPath(src, 'src'), toPath(dest, 'dest'), mode);
}

function symlinkSync(target, path, type) {
  if (type !== undefined && type !== null && !['dir', 'file', 'junction'].includes(type)) {
    throw nodeError(Error, 'ERR_FS_INVALID_SYMLINK_TYPE', `Symlink type must be one of "dir", "file", or "junction". Received "${type}"`);
  }
  host.fsSymlink(toPath(target, 'target'), toPath(path, 'path'));
}

function readlinkSync(path, options) {
  const o = fsOptions(options, { encoding: 'utf8' });
  const enc = checkEncoding(o.encoding);
  const s = host.fsReadlink(toPath(path));
  return enc === 'utf8' ? s : enc === null ? Buffer.from(s) : Buffer.from(s).toString(enc);
}

function chmodSync(path, mode) { host.fsChmod(toPath(path), parseMode(mode, 'mode')); }

function accessSync(path, mode = fsConstants.F_OK) {
  validateMode(mode);
  host.fsAccess(toPath(path), mode);
}

function existsSync(path) {
  try { return host.fsExists(toPath(path)); } catch { return false; }
}

function realpathSync(path, options) {
  const o = fsOptions(options, { encoding: 'utf8' });
  const enc = checkEncoding(o.encoding);
  const s = host.fsRealpath(toPath(path));
  return enc === 'utf8' ? s : enc === null ? Buffer.from(s) : Buffer.from(s).toString(enc);
}

function truncateSync(path, len = 0) {
  validateInteger(len, 'len');
  host.fsTruncate(toPath(path), Math.max(0, len));
}

function toTime(t, name) {
  if (typeof t === 'number') return t;
  if (typeof t === 'string' && /^\d+(\.\d*)?$/.test(t)) return Number(t);
  if (t instanceof Date) return t.getTime() / 1000;
  throw invalidArgType(name, 'of type number or an instance of Date', t);
}

function utimesSync(path, atime, mtime) { host.fsUtimes(toPath(path), toTime(atime, 'atime'), toTime(mtime, 'mtime'), true); }
function lutimesSync(path, atime, mtime) { host.fsUtimes(toPath(path), toTime(atime, 'atime'), toTime(mtime, 'mtime'), false); }
function linkSync(existing, newPath) { host.fsLink(toPath(existing, 'existingPath'), toPath(newPath, 'newPath')); }
function mkdtempSync(prefix, options) {
  validateString(prefix, 'prefix');
  const o = fsOptions(options, { encoding: 'utf8' });
  const enc = checkEncoding(o.encoding);
  const s = host.fsMkdtemp(toPath(prefix, 'prefix'));
  return enc === 'utf8' ? s : enc === null ? Buffer.from(s) : Buffer.from(s).toString(enc);
}

function fdUnavailable(name) {
  return function () {
    throw nodeError(Error, 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM', `fs.${name} is not available in the js backend (workspace files are not watched)`);
  };
}

const makeFsPromisesModule = once(() => {
  const m = {
    constants: fsConstants,
    async readFile(path, options) { return readFileSync(path, options); },
    async writeFile(path, data, options) {
      const o = fsOptions(options, { encoding: 'utf8' });
      if (isIterableData(data)) data = await collect(data, checkEncoding(o.encoding) ?? 'utf8');
      writeFileSync(path, data, options);
    },
    async appendFile(path, data, options) {
      const o = fsOptions(options, { encoding: 'utf8' });
      if (isIterableData(data)) data = await collect(data, checkEncoding(o.encoding) ?? 'utf8');
      writeFileSync(path, data, options, 'a');
    },
    async mkdir(path, options) { return mkdirSync(path, options); },
    async readdir(path, options) { return readdirSync(path, options); },
    async stat(path, options) { return statSync(path, { ...fsOptions(options, {}), throwIfNoEntry: true }); },
    async lstat(path, options) { return lstatSync(path, { ...fsOptions(options, {}), throwIfNoEntry: true }); },
    async rm(path, options) { return rmSync(path, options); },
    async rmdir(path, options) { return rmdirSync(path, options); },
    async unlink(path) { return unlinkSync(path); },
    async rename(from, to) { return renameSync(from, to); },
    async copyFile(src, dest, mode) { return copyFileSync(src, dest, mode); },
    async symlink(target, path, type) { return symlinkSync(target, path, type); },
    async readlink(path, options) { return readlinkSync(path, options); },
    async chmod(path, mode) { return chmodSync(path, mode); },
    async access(path, mode) { return accessSync(path, mode); },
    async realpath(path, options) { return realpathSync(path, options); },
    async truncate(path, len) { return truncateSync(path, len); },
    async utimes(path, atime, mtime) { return utimesSync(path, atime, mtime); },
    async lutimes(path, atime, mtime) { return lutimesSync(path, atime, mtime); },
    async link(existing, newPath) { return linkSync(existing, newPath); },
    async mkdtemp(prefix, options) { return mkdtempSync(prefix, options); },
};
  addFsPromisesHandles(m);
  return m;
});

function callbackify2(fn) {
  return function (...args) {
    const cb = args.pop();
    validateFunction(cb, 'cb');
    let result;
    try {
      result = fn(...args);
    } catch (e) {
      setImmediate(cb, e);
      return;
    }
    setImmediate(cb, null, result);
  };
}

const makeFsModule = once(() => {
  const sync = {
    readFileSync: (p, o) => {
      if (typeof p !== 'number') return readFileSync(p, o);
      const enc = checkEncoding(fsOptions(o, {}).encoding);
      const b = readAllFD(fdArg(p));
      return enc === null ? b : b.toString(enc);
    },
    writeFileSync: (p, d, o) => (typeof p === 'number' ? void writeSync(p, d) : writeFileSync(p, d, o)),
    appendFileSync: (p, d, o) => (typeof p === 'number' ? void writeSync(p, d) : writeFileSync(p, d, o, 'a')), mkdirSync, readdirSync, statSync, lstatSync,
    rmSync, rmdirSync, unlinkSync, renameSync, copyFileSync, symlinkSync, readlinkSync, chmodSync,
    accessSync, existsSync, realpathSync, truncateSync, utimesSync, lutimesSync, linkSync, mkdtempSync,
  };
  const fsm = { ...sync, constants: fsConstants, promises: makeFsPromisesModule(), Stats, Dirent };
  for (const [name, fn] of Object.entries(sync)) {
    if (name === 'existsSync') continue;
    fsm[name.slice(0, -4)] = callbackify2(fn);
  }
  fsm.exists = (p, cb) => setImmediate(cb, existsSync(p));
  for (const k of Object.keys(fsConstants)) if (/^[FRWX]_OK$/.test(k)) fsm[k] = fsConstants[k];
  for (const name of ['watch', 'watchFile', 'unwatchFile']) {
    fsm[name] = fdUnavailable(name);
  }
  addFsHandles(fsm);
  return fsm;
});
