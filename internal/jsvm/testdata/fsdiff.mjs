// The differential test of node:fs/promises: every call is run under Node on
// a temporary directory and under the js backend on a workspace holding the
// same files (fsdiff_test.go), and the printed lines must be the same. The
// cwd is the fixture's root; paths are relative so that messages match, and
// any absolute path printed has the cwd replaced by <cwd>.
import fs from 'node:fs/promises';
import { Buffer } from 'node:buffer';
import { pathToFileURL } from 'node:url';

const cwd = process.cwd();
const norm = (s) => (typeof s === 'string' ? s.split(cwd).join('<cwd>') : s);

function show(v) {
  if (v === undefined) return 'undefined';
  if (Buffer.isBuffer(v)) return `<Buffer ${v.toString('hex')}>`;
  if (typeof v === 'string') return JSON.stringify(norm(v));
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (v && typeof v.isFile === 'function' && 'parentPath' in v) {
    const t = v.isFile() ? 'file' : v.isDirectory() ? 'dir' : v.isSymbolicLink() ? 'link' : 'other';
    return `Dirent(${show(v.name)} ${t} parent=${show(v.parentPath)} path=${show(v.path)})`;
  }
  if (v && typeof v.isFile === 'function') {
    const t = v.isFile() ? 'file' : v.isDirectory() ? 'dir' : v.isSymbolicLink() ? 'link' : 'other';
    const size = v.isDirectory() ? '' : ` size=${v.size}`;
    const nlink = v.isDirectory() ? '' : ` nlink=${v.nlink}`;
    const recent = Math.abs(Date.now() - v.mtimeMs) < 600000 && v.mtime instanceof Date && v.atime instanceof Date &&
      v.ctime instanceof Date && v.birthtime instanceof Date && typeof v.ino === 'number' && typeof v.dev === 'number';
    return `Stats(${t} mode=${v.mode.toString(8)}${size}${nlink} uid=${v.uid} gid=${v.gid} blksize=${v.blksize} times=${recent})`;
  }
  return String(v);
}

function showError(e) {
  const keys = Object.keys(e).filter((k) => k !== 'info').join(',');
  const info = e.info ? ` info=${JSON.stringify(e.info)}` : '';
  return `${e.name} code=${e.code} errno=${e.errno} syscall=${e.syscall} path=${show(e.path)} dest=${show(e.dest)} ` +
    `keys=${keys}${info} message=${JSON.stringify(norm(e.message))} string=${JSON.stringify(norm(String(e)))} ` +
    `instanceofError=${e instanceof Error}`;
}

async function t(label, f) {
  try {
    const p = f();
    const isPromise = p instanceof Promise;
    const v = await p;
    console.log(`${label}: ${isPromise ? '' : 'SYNC '}OK ${show(v)}`);
  } catch (e) {
    console.log(`${label}: ERR ${showError(e)}`);
  }
}

const sorted = async (p) => (await p).slice().sort((a, b) => (show(a) < show(b) ? -1 : show(a) > show(b) ? 1 : 0));
const { constants } = fs;

// readFile
await t('readFile buffer', () => fs.readFile('a.txt'));
await t('readFile utf8', () => fs.readFile('a.txt', 'utf8'));
await t('readFile utf-8 option', () => fs.readFile('a.txt', { encoding: 'utf-8' }));
await t('readFile base64', () => fs.readFile('a.txt', { encoding: 'base64' }));
await t('readFile hex', () => fs.readFile('a.txt', 'hex'));
await t('readFile latin1', () => fs.readFile('bin.dat', 'latin1'));
await t('readFile ucs2', () => fs.readFile('a.txt', 'ucs2'));
await t('readFile invalid utf8', async () => [...await fs.readFile('bin.dat', 'utf8')].map((c) => c.codePointAt(0).toString(16)).join(' '));
await t('readFile empty file', () => fs.readFile('empty.txt', 'utf8'));
await t('readFile missing', () => fs.readFile('nope'));
await t('readFile missing dir', () => fs.readFile('nodir/x'));
await t('readFile dir', () => fs.readFile('dir'));
await t('readFile trailing slash', () => fs.readFile('a.txt/'));
await t('readFile through file', () => fs.readFile('a.txt/x'));
await t('readFile empty path', () => fs.readFile(''));
await t('readFile symlink', () => fs.readFile('link-a', 'utf8'));
await t('readFile dangling', () => fs.readFile('dangling'));
await t('readFile loop', () => fs.readFile('loop1'));
await t('readFile number', () => fs.readFile(123));
await t('readFile object', () => fs.readFile({}));
await t('readFile nul', () => fs.readFile('a\u0000b'));
await t('readFile bad encoding', () => fs.readFile('a.txt', 'bogus'));
await t('readFile Buffer path', () => fs.readFile(Buffer.from('a.txt'), 'utf8'));
await t('readFile URL path', () => fs.readFile(pathToFileURL('a.txt'), 'utf8'));
await t('readFile dotted path', () => fs.readFile('./dir/../a.txt', 'utf8'));
await t('readFile flag a+', () => fs.readFile('created-by-read.txt', { encoding: 'utf8', flag: 'a+' }));
await t('readFile flag bad', () => fs.readFile('a.txt', { flag: 'q' }));

// writeFile
await t('writeFile string', () => fs.writeFile('w1.txt', 'hello wörld'));
await t('writeFile read back', () => fs.readFile('w1.txt', 'utf8'));
await t('writeFile buffer', () => fs.writeFile('w1.txt', Buffer.from([1, 2, 3])));
await t('writeFile read back 2', () => fs.readFile('w1.txt'));
await t('writeFile wx new', () => fs.writeFile('w2.txt', 'abc', { flag: 'wx' }));
await t('writeFile wx exists', () => fs.writeFile('w2.txt', 'abc', { flag: 'wx' }));
await t('writeFile hex', () => fs.writeFile('w3.txt', '68656c6c6f', 'hex'));
await t('writeFile hex read', () => fs.readFile('w3.txt', 'utf8'));
await t('writeFile typed array', () => fs.writeFile('w4.txt', new Uint16Array([0x4142, 0x4344])));
await t('writeFile typed array read', () => fs.readFile('w4.txt', 'utf8'));
await t('writeFile dataview', () => fs.writeFile('w4b.txt', new DataView(new Uint8Array([65, 66, 67]).buffer, 1)));
await t('writeFile dataview read', () => fs.readFile('w4b.txt', 'utf8'));
await t('writeFile dir', () => fs.writeFile('dir', 'x'));
await t('writeFile missing parent', () => fs.writeFile('nodir/x.txt', 'x'));
await t('writeFile through file', () => fs.writeFile('a.txt/x', 'x'));
await t('writeFile trailing slash new', () => fs.writeFile('newfile/', 'x'));
await t('writeFile trailing slash file', () => fs.writeFile('empty.txt/', 'x'));
await t('writeFile mode', () => fs.writeFile('w5.txt', 'x', { mode: 0o600 }));
await t('writeFile mode stat', () => fs.stat('w5.txt'));
await t('writeFile mode ignored when exists', () => fs.writeFile('w5.txt', 'yy', { mode: 0o644 }));
await t('writeFile mode stat 2', () => fs.stat('w5.txt'));
await t('writeFile via symlink', () => fs.writeFile('link-b', 'via link'));
await t('writeFile via symlink read target', () => fs.readFile('b.txt', 'utf8'));
await t('writeFile via symlink lstat', () => fs.lstat('link-b'));
await t('writeFile dangling', () => fs.writeFile('dangling', 'made'));
await t('writeFile dangling target', () => fs.readFile('nowhere', 'utf8'));
await t('writeFile number data', () => fs.writeFile('w6.txt', 123));
await t('writeFile object data', () => fs.writeFile('w6.txt', { a: 1 }));
await t('writeFile iterable', () => fs.writeFile('w7.txt', ['a', 'b', Buffer.from('c')]));
await t('writeFile iterable read', () => fs.readFile('w7.txt', 'utf8'));
await t('writeFile async iterable', () => fs.writeFile('w7b.txt', (async function* () { yield 'x'; yield 'y'; })()));
await t('writeFile async iterable read', () => fs.readFile('w7b.txt', 'utf8'));
await t('writeFile flag a', () => fs.writeFile('w2.txt', 'def', { flag: 'a' }));
await t('writeFile flag a read', () => fs.readFile('w2.txt', 'utf8'));
await t('writeFile flag r+', () => fs.writeFile('w2.txt', 'XY', { flag: 'r+' }));
await t('writeFile flag r+ read', () => fs.readFile('w2.txt', 'utf8'));
await t('writeFile flag r+ missing', () => fs.writeFile('w-missing.txt', 'XY', { flag: 'r+' }));
await t('writeFile empty path', () => fs.writeFile('', 'x'));
await t('writeFile base64 option', () => fs.writeFile('w8.txt', 'aGk=', { encoding: 'base64' }));
await t('writeFile base64 read', () => fs.readFile('w8.txt', 'utf8'));

// appendFile
await t('appendFile new', () => fs.appendFile('ap.txt', 'a'));
await t('appendFile buffer', () => fs.appendFile('ap.txt', Buffer.from('b')));
await t('appendFile hex', () => fs.appendFile('ap.txt', '63', 'hex'));
await t('appendFile read', () => fs.readFile('ap.txt', 'utf8'));
await t('appendFile dir', () => fs.appendFile('dir', 'x'));
await t('appendFile missing parent', () => fs.appendFile('nodir/x', 'x'));
await t('appendFile ax new', () => fs.appendFile('ap2.txt', 'x', { flag: 'ax' }));
await t('appendFile ax exists', () => fs.appendFile('ap2.txt', 'x', { flag: 'ax' }));
await t('appendFile mode', () => fs.appendFile('ap3.txt', 'x', { mode: 0o640 }));
await t('appendFile mode stat', () => fs.stat('ap3.txt'));
await t('appendFile via symlink', () => fs.appendFile('link-a', '+'));
await t('appendFile via symlink read', () => fs.readFile('a.txt', 'utf8'));

// mkdir
await t('mkdir', () => fs.mkdir('m1'));
await t('mkdir stat', () => fs.stat('m1'));
await t('mkdir exists', () => fs.mkdir('m1'));
await t('mkdir exists trailing slash', () => fs.mkdir('m1/'));
await t('mkdir missing parent', () => fs.mkdir('m2/a/b'));
await t('mkdir recursive', () => fs.mkdir('m2/a/b', { recursive: true }));
await t('mkdir recursive again', () => fs.mkdir('m2/a/b', { recursive: true }));
await t('mkdir recursive partial', () => fs.mkdir('m2/a/c/d', { recursive: true }));
await t('mkdir recursive over file', () => fs.mkdir('a.txt', { recursive: true }));
await t('mkdir recursive through file', () => fs.mkdir('a.txt/x/y', { recursive: true }));
await t('mkdir recursive absolute', () => fs.mkdir(`${cwd}/m5/x`, { recursive: true }));
await t('mkdir recursive dotted', () => fs.mkdir('./m6/y/', { recursive: true }));
await t('mkdir mode number', () => fs.mkdir('m3', 0o700));
await t('mkdir mode number stat', () => fs.stat('m3'));
await t('mkdir mode string', () => fs.mkdir('m4', { mode: '750' }));
await t('mkdir mode string stat', () => fs.stat('m4'));
await t('mkdir bad mode', () => fs.mkdir('m7', { mode: 'xyz' }));
await t('mkdir bad recursive', () => fs.mkdir('m7', { recursive: 'yes' }));
await t('mkdir empty path', () => fs.mkdir(''));
await t('mkdir through file', () => fs.mkdir('a.txt/x'));
await t('mkdir over symlink', () => fs.mkdir('link-dir'));
await t('mkdir recursive over symlink to dir', () => fs.mkdir('link-dir', { recursive: true }));

// readdir
await t('readdir', () => sorted(fs.readdir('.')));
await t('readdir dir', () => fs.readdir('dir'));
await t('readdir withFileTypes', () => sorted(fs.readdir('dir', { withFileTypes: true })));
await t('readdir root withFileTypes', () => sorted(fs.readdir('.', { withFileTypes: true })));
await t('readdir recursive', () => sorted(fs.readdir('dir', { recursive: true })));
await t('readdir recursive withFileTypes', () => sorted(fs.readdir('dir', { recursive: true, withFileTypes: true })));
await t('readdir buffer', () => fs.readdir('dir', 'buffer'));
await t('readdir missing', () => fs.readdir('nope'));
await t('readdir file', () => fs.readdir('a.txt'));
await t('readdir symlink to dir', () => fs.readdir('link-dir'));
await t('readdir empty dir', () => fs.readdir('emptydir'));
await t('readdir trailing slash', () => fs.readdir('dir/'));
await t('readdir empty path', () => fs.readdir(''));
await t('readdir dangling', () => fs.readdir('dangling-dir'));

// stat, lstat
await t('stat file', () => fs.stat('exec.sh'));
await t('stat dir', () => fs.stat('dir'));
await t('stat symlink', () => fs.stat('link-a'));
await t('lstat symlink', () => fs.lstat('link-a'));
await t('lstat symlink to dir', () => fs.lstat('link-dir'));
await t('lstat symlink to dir slash', () => fs.lstat('link-dir/'));
await t('stat dangling', () => fs.stat('dangling-dir'));
await t('lstat dangling', () => fs.lstat('dangling-dir'));
await t('stat missing', () => fs.stat('nope'));
await t('lstat missing', () => fs.lstat('nope'));
await t('stat trailing slash file', () => fs.stat('a.txt/'));
await t('stat trailing slash dir', () => fs.stat('dir/'));
await t('stat through file', () => fs.stat('a.txt/x'));
await t('stat empty', () => fs.stat(''));
await t('stat loop', () => fs.stat('loop1'));
await t('lstat loop', () => fs.lstat('loop1'));
await t('stat throwIfNoEntry false', () => fs.stat('nope', { throwIfNoEntry: false }));
await t('stat hard linked', () => fs.stat('hard1.txt'));

// unlink, rmdir
await t('unlink', () => fs.unlink('w8.txt'));
await t('unlink gone', () => fs.access('w8.txt'));
await t('unlink missing', () => fs.unlink('w8.txt'));
await t('unlink dir', () => fs.unlink('emptydir'));
await t('unlink symlink', () => fs.unlink('link-b'));
await t('unlink symlink target stays', () => fs.readFile('b.txt', 'utf8'));
await t('rmdir', () => fs.rmdir('m1'));
await t('rmdir not empty', () => fs.rmdir('m2'));
await t('rmdir file', () => fs.rmdir('a.txt'));
await t('rmdir missing', () => fs.rmdir('nope'));
await t('rmdir symlink', () => fs.rmdir('link-dir'));

// rm
await t('rm missing', () => fs.rm('nope'));
await t('rm missing force', () => fs.rm('nope', { force: true }));
await t('rm dir', () => fs.rm('dir2'));
await t('rm dir recursive', () => fs.rm('dir2', { recursive: true }));
await t('rm dir gone', () => fs.stat('dir2'));
await t('rm file', () => fs.rm('w7.txt'));
await t('rm symlink to dir', () => fs.rm('link-dir2'));
await t('rm symlink to dir target stays', () => fs.readdir('dir'));
await t('rm trailing slash file', () => fs.rm('a.txt/', { recursive: true }));
await t('rm through file force', () => fs.rm('a.txt/zz', { force: true }));
await t('rm bad option', () => fs.rm('w7b.txt', { recursive: 1 }));
await t('rm empty path', () => fs.rm(''));

// rename
await t('rename', () => fs.rename('w4.txt', 'r1.txt'));
await t('rename result', () => fs.readFile('r1.txt', 'utf8'));
await t('rename old gone', () => fs.stat('w4.txt'));
await t('rename missing', () => fs.rename('nope', 'r2.txt'));
await t('rename onto file', () => fs.rename('r1.txt', 'w3.txt'));
await t('rename onto file result', () => fs.readFile('w3.txt', 'utf8'));
await t('rename dir onto file', () => fs.rename('m3', 'w3.txt'));
await t('rename file onto dir', () => fs.rename('w3.txt', 'm4'));
await t('rename dir into itself', () => fs.rename('m2', 'm2/a/inner'));
await t('rename missing parent', () => fs.rename('w3.txt', 'nodir/x'));
await t('rename dir onto empty dir', () => fs.rename('m3', 'm4'));
await t('rename dir onto non-empty dir', () => fs.rename('m4', 'm2'));
await t('rename symlink', () => fs.rename('dangling', 'dangling2'));
await t('rename symlink readlink', () => fs.readlink('dangling2'));
await t('rename same', () => fs.rename('w3.txt', 'w3.txt'));

// copyFile
await t('copyFile', () => fs.copyFile('a.txt', 'c1.txt'));
await t('copyFile result', () => fs.readFile('c1.txt', 'utf8'));
await t('copyFile keeps mode', () => fs.copyFile('exec.sh', 'c2.sh'));
await t('copyFile keeps mode stat', () => fs.stat('c2.sh'));
await t('copyFile excl', () => fs.copyFile('a.txt', 'c1.txt', constants.COPYFILE_EXCL));
await t('copyFile overwrite', () => fs.copyFile('exec.sh', 'c1.txt'));
await t('copyFile overwrite stat', () => fs.stat('c1.txt'));
await t('copyFile missing', () => fs.copyFile('nope', 'c3.txt'));
await t('copyFile dir', () => fs.copyFile('dir', 'c3.txt'));
await t('copyFile onto dir', () => fs.copyFile('a.txt', 'dir'));
await t('copyFile missing parent', () => fs.copyFile('a.txt', 'nodir/x'));
await t('copyFile symlink source', () => fs.copyFile('link-a', 'c4.txt'));
await t('copyFile symlink source lstat', () => fs.lstat('c4.txt'));
await t('copyFile bad mode', () => fs.copyFile('a.txt', 'c5.txt', 99));

// symlink, readlink
await t('symlink', () => fs.symlink('a.txt', 's1'));
await t('symlink readlink', () => fs.readlink('s1'));
await t('symlink lstat', () => fs.lstat('s1'));
await t('symlink exists', () => fs.symlink('x', 'a.txt'));
await t('symlink missing parent', () => fs.symlink('a.txt', 'nodir/s'));
await t('symlink dangling', () => fs.symlink('../outside/x', 's2'));
await t('symlink dangling readlink', () => fs.readlink('s2'));
await t('symlink type dir', () => fs.symlink('dir', 's3', 'dir'));
await t('symlink bad type', () => fs.symlink('dir', 's4', 'bogus'));
await t('readlink', () => fs.readlink('link-a'));
await t('readlink file', () => fs.readlink('a.txt'));
await t('readlink missing', () => fs.readlink('nope'));
await t('readlink buffer', () => fs.readlink('link-a', 'buffer'));
await t('readlink trailing slash', () => fs.readlink('s3/'));

// chmod
await t('chmod', () => fs.chmod('c1.txt', 0o600));
await t('chmod stat', () => fs.stat('c1.txt'));
await t('chmod string', () => fs.chmod('c1.txt', '644'));
await t('chmod string stat', () => fs.stat('c1.txt'));
await t('chmod setuid', () => fs.chmod('c1.txt', 0o4755));
await t('chmod setuid stat', () => fs.stat('c1.txt'));
await t('chmod dir', () => fs.chmod('m2', 0o700));
await t('chmod dir stat', () => fs.stat('m2'));
await t('chmod symlink follows', () => fs.chmod('s1', 0o640));
await t('chmod symlink follows target', () => fs.stat('a.txt'));
await t('chmod missing', () => fs.chmod('nope', 0o644));
await t('chmod bad string', () => fs.chmod('c1.txt', 'abc'));
await t('chmod bad type', () => fs.chmod('c1.txt', {}));
await t('chmod negative', () => fs.chmod('c1.txt', -1));

// access
await t('access', () => fs.access('a.txt'));
await t('access missing', () => fs.access('nope'));
await t('access rw', () => fs.access('a.txt', constants.R_OK | constants.W_OK));
await t('access x on file without x', () => fs.access('a.txt', constants.X_OK));
await t('access x on executable', () => fs.access('exec.sh', constants.X_OK));
await t('access x on dir', () => fs.access('dir', constants.X_OK));
await t('access dangling', () => fs.access('dangling2'));
await t('access bad mode', () => fs.access('a.txt', 8));
await t('access through file', () => fs.access('a.txt/x'));

// realpath
await t('realpath symlink', () => fs.realpath('s1'));
await t('realpath dot', () => fs.realpath('.'));
await t('realpath dotted', () => fs.realpath('dir/../a.txt'));
await t('realpath through symlinked dir', () => fs.realpath('s3/f.txt'));
await t('realpath dangling', () => fs.realpath('dangling2'));
await t('realpath missing', () => fs.realpath('nope'));
await t('realpath loop', () => fs.realpath('loop1'));
await t('realpath buffer', async () => { const b = await fs.realpath('s1', 'buffer'); return `${Buffer.isBuffer(b)} ${norm(b.toString())}`; });

// link, truncate, utimes, mkdtemp
await t('link', () => fs.link('a.txt', 'hard2.txt'));
await t('link stat', () => fs.stat('hard2.txt'));
await t('link exists', () => fs.link('a.txt', 'hard2.txt'));
await t('link missing', () => fs.link('nope', 'hard3.txt'));
await t('link dir', () => fs.link('dir', 'hard3'));
await t('truncate', () => fs.truncate('c1.txt', 2));
await t('truncate read', () => fs.readFile('c1.txt', 'utf8'));
await t('truncate extend', () => fs.truncate('c1.txt', 4));
await t('truncate extend read', () => fs.readFile('c1.txt'));
await t('truncate default', () => fs.truncate('c1.txt'));
await t('truncate default stat', () => fs.stat('c1.txt'));
await t('truncate missing', () => fs.truncate('nope'));
await t('truncate dir', () => fs.truncate('dir'));
await t('utimes', () => fs.utimes('a.txt', 1000, new Date(2000000)));
await t('utimes stat', async () => { const s = await fs.stat('a.txt'); return `${s.atimeMs} ${s.mtimeMs} ${s.mtime.toISOString()}`; });
await t('utimes missing', () => fs.utimes('nope', 1, 1));
await t('mkdtemp', async () => { const d = await fs.mkdtemp('tmp-'); const s = await fs.stat(d); return `${/^tmp-[A-Za-z0-9]{6}$/.test(d)} ${s.isDirectory()} ${(s.mode & 0o777).toString(8)}`; });
await t('mkdtemp missing parent', async () => { try { await fs.mkdtemp('nodir/x-'); } catch (e) { return `${e.code} ${e.syscall} ${/^nodir\/x-[A-Za-z0-9]{6}$/.test(e.path)}`; } });

// constants and the shape of the module
await t('constants', () => [constants.F_OK, constants.R_OK, constants.W_OK, constants.X_OK, constants.COPYFILE_EXCL, constants.O_CREAT, constants.S_IFMT, constants.S_IFLNK].join(' '));
await t('functions', () => ['readFile', 'writeFile', 'appendFile', 'mkdir', 'readdir', 'stat', 'lstat', 'rm', 'rmdir', 'unlink', 'rename', 'copyFile', 'symlink', 'readlink', 'chmod', 'access', 'realpath', 'link', 'truncate', 'utimes', 'mkdtemp'].map((n) => typeof fs[n]).join(' '));
await t('errors are Error objects', async () => { try { await fs.readFile('nope'); } catch (e) { return `${e instanceof Error} ${e.constructor === Error} ${Object.prototype.toString.call(e)}`; } });

// The whole tree at the end.
async function walk(dir) {
  const out = [];
  for (const name of (await fs.readdir(dir)).sort()) {
    const p = dir === '.' ? name : `${dir}/${name}`;
    if (/^tmp-/.test(name)) continue;
    const s = await fs.lstat(p);
    if (s.isSymbolicLink()) out.push(`${p} link -> ${await fs.readlink(p)}`);
    else if (s.isDirectory()) {
      out.push(`${p} dir ${(s.mode & 0o7777).toString(8)}`);
      out.push(...await walk(p));
    } else out.push(`${p} file ${(s.mode & 0o7777).toString(8)} ${s.nlink} ${(await fs.readFile(p)).toString('hex')}`);
  }
  return out;
}
for (const line of await walk('.')) console.log(`tree: ${line}`);
