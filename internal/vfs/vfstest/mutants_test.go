package vfstest_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

// Mutants: filesystems that are each wrong in one small way. TestMutants checks that
// every test of the suite fails on at least one of them, so that no test passes
// vacuously.

// errnoMut replaces one errno by another in every error it returns.
type errnoMut struct {
	vfstest.FS
	from, to syscall.Errno
}

func (m errnoMut) fix(err error) error {
	if pe, ok := err.(*fs.PathError); ok && pe.Err == m.from {
		return &fs.PathError{Op: pe.Op, Path: pe.Path, Err: m.to}
	}
	return err
}

func (m errnoMut) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	fi, err := m.FS.Stat(ctx, name)
	return fi, m.fix(err)
}

func (m errnoMut) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	fi, err := m.FS.Lstat(ctx, name)
	return fi, m.fix(err)
}

func (m errnoMut) Mkdir(ctx context.Context, name string, perm fs.FileMode) error {
	return m.fix(m.FS.Mkdir(ctx, name, perm))
}

func (m errnoMut) MkdirAll(ctx context.Context, name string, perm fs.FileMode) error {
	return m.fix(m.FS.MkdirAll(ctx, name, perm))
}

func (m errnoMut) ReadDir(ctx context.Context, name string) ([]vfs.DirEntry, error) {
	ents, err := m.FS.ReadDir(ctx, name)
	return ents, m.fix(err)
}

func (m errnoMut) OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (vfstest.File, error) {
	f, err := m.FS.OpenFile(ctx, name, flag, perm)
	if err != nil {
		return nil, m.fix(err)
	}
	return errnoFile{f, m}, nil
}

func (m errnoMut) ReadFile(ctx context.Context, name string) ([]byte, error) {
	data, err := m.FS.ReadFile(ctx, name)
	return data, m.fix(err)
}

func (m errnoMut) WriteFile(ctx context.Context, name string, data []byte, perm fs.FileMode) error {
	return m.fix(m.FS.WriteFile(ctx, name, data, perm))
}

func (m errnoMut) Remove(ctx context.Context, name string) error {
	return m.fix(m.FS.Remove(ctx, name))
}

func (m errnoMut) RemoveAll(ctx context.Context, name string) error {
	return m.fix(m.FS.RemoveAll(ctx, name))
}

func (m errnoMut) Rename(ctx context.Context, a, b string, flags vfs.RenameFlags) error {
	return m.fix(m.FS.Rename(ctx, a, b, flags))
}

func (m errnoMut) Link(ctx context.Context, a, b string) error { return m.fix(m.FS.Link(ctx, a, b)) }

func (m errnoMut) Symlink(ctx context.Context, target, name string) error {
	return m.fix(m.FS.Symlink(ctx, target, name))
}

func (m errnoMut) Readlink(ctx context.Context, name string) (string, error) {
	s, err := m.FS.Readlink(ctx, name)
	return s, m.fix(err)
}

func (m errnoMut) Chmod(ctx context.Context, name string, mode fs.FileMode) error {
	return m.fix(m.FS.Chmod(ctx, name, mode))
}

func (m errnoMut) Truncate(ctx context.Context, name string, size int64) error {
	return m.fix(m.FS.Truncate(ctx, name, size))
}

func (m errnoMut) Realpath(ctx context.Context, name string) (string, error) {
	s, err := m.FS.Realpath(ctx, name)
	return s, m.fix(err)
}

type errnoFile struct {
	vfstest.File
	m errnoMut
}

func (f errnoFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	return n, f.m.fix(err)
}

func (f errnoFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.m.fix(err)
}

func (f errnoFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	return n, f.m.fix(err)
}

func (f errnoFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.m.fix(err)
}

func (f errnoFile) Seek(off int64, whence int) (int64, error) {
	n, err := f.File.Seek(off, whence)
	return n, f.m.fix(err)
}

func (f errnoFile) Truncate(size int64) error { return f.m.fix(f.File.Truncate(size)) }

func (f errnoFile) Sync() error { return f.m.fix(f.File.Sync()) }

func (f errnoFile) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	return fi, f.m.fix(err)
}

func (f errnoFile) Close() error { return f.m.fix(f.File.Close()) }

// fileMut wraps the files a filesystem opens.
type fileMut struct {
	vfstest.FS
	wrap func(vfstest.File) vfstest.File
}

func (m fileMut) OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (vfstest.File, error) {
	f, err := m.FS.OpenFile(ctx, name, flag, perm)
	if err != nil {
		return nil, err
	}
	return m.wrap(f), nil
}

type (
	lossyWriteAt    struct{ vfstest.File }
	shortBigWrite   struct{ vfstest.File }
	readAtNoEOF     struct{ vfstest.File }
	seekNoError     struct{ vfstest.File }
	fstatFullBlocks struct{ vfstest.File }
	fstatLinked     struct{ vfstest.File }
)

func (f lossyWriteAt) WriteAt(p []byte, off int64) (int, error) {
	if len(p) > 1 {
		n, err := f.File.WriteAt(p[:len(p)-1], off)
		return n + 1, err
	}
	return f.File.WriteAt(p, off)
}

func (f shortBigWrite) Write(p []byte) (int, error) {
	if len(p) > 65536 {
		_, err := f.File.Write(p[:65536])
		return len(p), err
	}
	return f.File.Write(p)
}

func (f readAtNoEOF) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

func (f seekNoError) Seek(off int64, whence int) (int64, error) {
	n, err := f.File.Seek(off, whence)
	if err != nil {
		return 0, nil
	}
	return n, nil
}

func withAttr(fi fs.FileInfo, err error, change func(*vfs.Attr)) (fs.FileInfo, error) {
	if err != nil {
		return fi, err
	}
	a := *fi.Sys().(*vfs.Attr)
	change(&a)
	return vfs.NewFileInfo(fi.Name(), a), nil
}

func (f fstatFullBlocks) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	return withAttr(fi, err, func(a *vfs.Attr) { a.Blocks = (a.Size + 511) / 512 })
}

func (f fstatLinked) Stat() (fs.FileInfo, error) {
	fi, err := f.File.Stat()
	return withAttr(fi, err, func(a *vfs.Attr) { a.Nlink = max(a.Nlink, 1) })
}

// Mutants that change one method of the filesystem.
type (
	chmodNoSpecial    struct{ vfstest.FS }
	chownSwapped      struct{ vfstest.FS }
	mkdirNoSticky     struct{ vfstest.FS }
	dotdotMissing     struct{ vfstest.FS }
	mkdirAllNoParents struct{ vfstest.FS }
	dirNlinkTwo       struct{ vfstest.FS }
	openNoExcl        struct{ vfstest.FS }
	readDirReversed   struct{ vfstest.FS }
	writeFileNoTrunc  struct{ vfstest.FS }
	realpathLexical   struct{ vfstest.FS }
	removeAllStrict   struct{ vfstest.FS }
	symlinkSizeZero   struct{ vfstest.FS }
	chmodTouches      struct{ vfstest.FS }
	mknodMakesFiles   struct{ vfstest.FS }
	rdevLost          struct{ vfstest.FS }
	specialCtimeFixed struct{ vfstest.FS }
)

func (m mknodMakesFiles) Mknod(ctx context.Context, name string, mode uint32, dev uint64) error {
	return m.FS.Mknod(ctx, name, vfs.S_IFREG|mode&0o7777, 0)
}

func (m rdevLost) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	fi, err := m.FS.Lstat(ctx, name)
	return withAttr(fi, err, func(a *vfs.Attr) { a.Rdev = 0 })
}

func (m specialCtimeFixed) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	fi, err := m.FS.Lstat(ctx, name)
	return withAttr(fi, err, func(a *vfs.Attr) {
		if a.IsSpecial() {
			a.Ctime = a.Mtime
		}
	})
}

func (m chmodNoSpecial) Chmod(ctx context.Context, name string, mode fs.FileMode) error {
	return m.FS.Chmod(ctx, name, mode.Perm())
}

func (m chownSwapped) Chown(ctx context.Context, name string, uid, gid int) error {
	return m.FS.Chown(ctx, name, gid, uid)
}

func (m mkdirNoSticky) Mkdir(ctx context.Context, name string, perm fs.FileMode) error {
	return m.FS.Mkdir(ctx, name, perm.Perm())
}

func (m dotdotMissing) WriteFile(ctx context.Context, name string, data []byte, perm fs.FileMode) error {
	if strings.HasPrefix(name, "/..") {
		return &fs.PathError{Op: "open", Path: name, Err: syscall.ENOENT}
	}
	return m.FS.WriteFile(ctx, name, data, perm)
}

func (m mkdirAllNoParents) MkdirAll(ctx context.Context, name string, perm fs.FileMode) error {
	if fi, err := m.FS.Stat(ctx, name); err == nil && fi.IsDir() {
		return nil
	}
	return m.FS.Mkdir(ctx, name, perm)
}

func (m dirNlinkTwo) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	fi, err := m.FS.Lstat(ctx, name)
	return withAttr(fi, err, func(a *vfs.Attr) {
		if a.IsDir() {
			a.Nlink = 2
		}
	})
}

func (m openNoExcl) OpenFile(ctx context.Context, name string, flag int, perm fs.FileMode) (vfstest.File, error) {
	return m.FS.OpenFile(ctx, name, flag&^os.O_EXCL, perm)
}

func (m readDirReversed) ReadDir(ctx context.Context, name string) ([]vfs.DirEntry, error) {
	ents, err := m.FS.ReadDir(ctx, name)
	slices.Reverse(ents)
	return ents, err
}

func (m writeFileNoTrunc) WriteFile(ctx context.Context, name string, data []byte, perm fs.FileMode) error {
	f, err := m.FS.OpenFile(ctx, name, os.O_WRONLY|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	f.Close()
	return err
}

func (m realpathLexical) Realpath(ctx context.Context, name string) (string, error) {
	if _, err := m.FS.Stat(ctx, name); err != nil {
		return "", err
	}
	return path.Clean("/" + name), nil
}

func (m removeAllStrict) RemoveAll(ctx context.Context, name string) error {
	if _, err := m.FS.Lstat(ctx, name); err != nil {
		return err
	}
	return m.FS.RemoveAll(ctx, name)
}

func (m symlinkSizeZero) Lstat(ctx context.Context, name string) (fs.FileInfo, error) {
	fi, err := m.FS.Lstat(ctx, name)
	return withAttr(fi, err, func(a *vfs.Attr) {
		if a.IsSymlink() {
			a.Size = 0
		}
	})
}

func (m chmodTouches) Chmod(ctx context.Context, name string, mode fs.FileMode) error {
	if err := m.FS.Chmod(ctx, name, mode); err != nil {
		return err
	}
	return m.FS.Chtimes(ctx, name, vfs.UtimeOmit, vfs.UtimeNow)
}

// mutants maps a mutant's name to how to make it and the tests that must fail on it.
var mutants = map[string]struct {
	wrap  func(vfstest.FS) vfstest.FS
	kills []string
}{
	"EBADF-is-EINVAL": {func(f vfstest.FS) vfstest.FS { return errnoMut{f, syscall.EBADF, syscall.EINVAL} }, []string{"Closed", "HandleModes"}},
	"EPERM-is-EACCES": {func(f vfstest.FS) vfstest.FS { return errnoMut{f, syscall.EPERM, syscall.EACCES} }, []string{"Link"}},
	"EEXIST-is-ENOENT": {func(f vfstest.FS) vfstest.FS { return errnoMut{f, syscall.EEXIST, syscall.ENOENT} },
		[]string{"Mkdir", "OpenFlags", "Rename"}},
	"ENAMETOOLONG-is-EINVAL": {func(f vfstest.FS) vfstest.FS { return errnoMut{f, syscall.ENAMETOOLONG, syscall.EINVAL} }, []string{"NameMax"}},
	"ENOTDIR-is-ENOENT": {func(f vfstest.FS) vfstest.FS { return errnoMut{f, syscall.ENOTDIR, syscall.ENOENT} },
		[]string{"NotDir", "Stat", "ReadDir", "Truncate", "Realpath", "MkdirAll"}},
	"ENOTEMPTY-is-EEXIST": {func(f vfstest.FS) vfstest.FS { return errnoMut{f, syscall.ENOTEMPTY, syscall.EEXIST} }, []string{"Remove", "Rename"}},
	"EINVAL-is-ENOENT": {func(f vfstest.FS) vfstest.FS { return errnoMut{f, syscall.EINVAL, syscall.ENOENT} },
		[]string{"Symlink", "Truncate", "ReadWriteSeek"}},
	"ELOOP-is-ENOENT": {func(f vfstest.FS) vfstest.FS { return errnoMut{f, syscall.ELOOP, syscall.ENOENT} }, []string{"SymlinkLimit", "Symlink"}},
	"EISDIR-is-EINVAL": {func(f vfstest.FS) vfstest.FS { return errnoMut{f, syscall.EISDIR, syscall.EINVAL} },
		[]string{"Truncate", "ReadFileWriteFile", "OpenFlags"}},
	"WriteAt-loses-a-byte": {func(f vfstest.FS) vfstest.FS {
		return fileMut{f, func(f vfstest.File) vfstest.File { return lossyWriteAt{f} }}
	}, []string{"Append", "OverwriteMiddle", "ReadAtWriteAt", "Unlinked"}},
	"big-Write-short": {func(f vfstest.FS) vfstest.FS {
		return fileMut{f, func(f vfstest.File) vfstest.File { return shortBigWrite{f} }}
	}, []string{"LargeFile"}},
	"ReadAt-no-EOF": {func(f vfstest.FS) vfstest.FS {
		return fileMut{f, func(f vfstest.File) vfstest.File { return readAtNoEOF{f} }}
	}, []string{"ReadAtWriteAt", "Sparse"}},
	"Seek-never-fails": {func(f vfstest.FS) vfstest.FS {
		return fileMut{f, func(f vfstest.File) vfstest.File { return seekNoError{f} }}
	}, []string{"ReadWriteSeek"}},
	"holes-cost-blocks": {func(f vfstest.FS) vfstest.FS {
		return fileMut{f, func(f vfstest.File) vfstest.File { return fstatFullBlocks{f} }}
	}, []string{"Sparse"}},
	"unlinked-nlink-1": {func(f vfstest.FS) vfstest.FS {
		return fileMut{f, func(f vfstest.File) vfstest.File { return fstatLinked{f} }}
	}, []string{"Unlinked"}},
	"Chmod-drops-special-bits": {func(f vfstest.FS) vfstest.FS { return chmodNoSpecial{f} }, []string{"Chmod", "ModeBits", "Chown"}},
	"Chown-swaps-ids":          {func(f vfstest.FS) vfstest.FS { return chownSwapped{f} }, []string{"Chown"}},
	"Chtimes-microseconds":     {func(f vfstest.FS) vfstest.FS { return microMtime{f} }, []string{"Chtimes"}},
	"Mkdir-drops-sticky":       {func(f vfstest.FS) vfstest.FS { return mkdirNoSticky{f} }, []string{"CreateMode"}},
	"dotdot-at-root-missing":   {func(f vfstest.FS) vfstest.FS { return dotdotMissing{f} }, []string{"DotDot"}},
	"MkdirAll-no-parents":      {func(f vfstest.FS) vfstest.FS { return mkdirAllNoParents{f} }, []string{"MkdirAll", "CreateMode"}},
	"dir-nlink-always-2":       {func(f vfstest.FS) vfstest.FS { return dirNlinkTwo{f} }, []string{"NlinkDir"}},
	"O_EXCL-ignored":           {func(f vfstest.FS) vfstest.FS { return openNoExcl{f} }, []string{"OpenFlags"}},
	"ReadDir-reversed":         {func(f vfstest.FS) vfstest.FS { return readDirReversed{f} }, []string{"ReadDir", "DotDot"}},
	"WriteFile-no-truncate":    {func(f vfstest.FS) vfstest.FS { return writeFileNoTrunc{f} }, []string{"ReadFileWriteFile"}},
	"Realpath-lexical":         {func(f vfstest.FS) vfstest.FS { return realpathLexical{f} }, []string{"Realpath"}},
	"RemoveAll-missing-fails":  {func(f vfstest.FS) vfstest.FS { return removeAllStrict{f} }, []string{"RemoveAll"}},
	"NoReplace-ignored":        {func(f vfstest.FS) vfstest.FS { return noReplaceIgnored{f} }, []string{"Rename"}},
	"symlink-size-0":           {func(f vfstest.FS) vfstest.FS { return symlinkSizeZero{f} }, []string{"Stat", "Symlink"}},
	"Chmod-touches-mtime":      {func(f vfstest.FS) vfstest.FS { return chmodTouches{f} }, []string{"Times"}},
	"XattrCreate-ignored":      {func(f vfstest.FS) vfstest.FS { return xattrCreateLost{f} }, []string{"Xattr"}},
	"Mknod-makes-files": {func(f vfstest.FS) vfstest.FS { return mknodMakesFiles{f} },
		[]string{"MknodTypes", "MknodDevices", "MknodErrors", "SpecialNames", "SpecialAttrs"}},
	"rdev-lost":           {func(f vfstest.FS) vfstest.FS { return rdevLost{f} }, []string{"MknodDevices"}},
	"special-ctime-fixed": {func(f vfstest.FS) vfstest.FS { return specialCtimeFixed{f} }, []string{"SpecialTimes"}},
}

const mutantsEnv = "VFSTEST_MUTANTS_CHILD"

// TestMutants runs, in a child process, each suite test on the mutants that should
// make it fail, and checks that they all did, and that every test in
// vfstest.Tests is killed by some mutant.
func TestMutants(t *testing.T) {
	if os.Getenv(mutantsEnv) != "" {
		for name, m := range mutants {
			for _, test := range m.kills {
				t.Run(name+"/"+test, func(t *testing.T) {
					vfstest.Tests[test](t, m.wrap(newOS(t)))
				})
			}
		}
		return
	}
	if testing.Short() {
		t.Skip("-short: mutation testing of the suite skipped")
	}
	start := time.Now()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMutants$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), mutantsEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed, so no mutant was caught:\n%s", out)
	}
	killed := map[string]bool{}
	for name, m := range mutants {
		for _, test := range m.kills {
			if _, ok := vfstest.Tests[test]; !ok {
				t.Errorf("mutant %s: no test %q", name, test)
				continue
			}
			if !strings.Contains(string(out), "--- FAIL: TestMutants/"+name+"/"+test+" ") {
				t.Errorf("test %s passed on mutant %s", test, name)
				continue
			}
			killed[test] = true
		}
	}
	for test := range vfstest.Tests {
		if !killed[test] {
			t.Errorf("no mutant makes test %s fail", test)
		}
	}
	if t.Failed() {
		t.Logf("child output:\n%s", out)
	}
	t.Logf("%d tests checked against %d mutants in %v", len(killed), len(mutants), time.Since(start))
}
