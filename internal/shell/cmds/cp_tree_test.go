package cmds

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// cpTreeFixture is a source tree for the cp -r differential rows: nested
// directories of many small files (runs written in one batch), an empty
// file, a file over cpFileInPage (opened, not read with its page),
// symbolic links between the files, modes other than 0644, two names of
// one file (split by cp -r, kept by cp -a) and a FIFO, on both sides made
// the same way.
type cpTreeEntry struct {
	path, data, link string
	mode             fs.FileMode // permission bits; a directory when path ends in "/"
	hard             string      // a hard link to this earlier entry
	fifo             bool
}

func cpTreeFixture() []cpTreeEntry {
	var es []cpTreeEntry
	add := func(e cpTreeEntry) { es = append(es, e) }
	add(cpTreeEntry{path: "src/", mode: 0o755})
	for d := range 3 {
		dir := fmt.Sprintf("src/d%d/", d)
		add(cpTreeEntry{path: dir, mode: 0o755})
		for f := range 7 {
			mode := fs.FileMode(0o644)
			switch f {
			case 2:
				mode = 0o755
			case 4:
				mode = 0o600
			case 5:
				mode = 0o666 // the umask applies without -p
			case 6:
				mode = 0o775
			}
			add(cpTreeEntry{path: fmt.Sprintf("%sf%d", dir, f), data: strings.Repeat(fmt.Sprintf("line of %d/%d\n", d, f), 1+f*3), mode: mode})
		}
		add(cpTreeEntry{path: dir + "l3", link: "f3"})
		add(cpTreeEntry{path: dir + "e/", mode: 0o750})
		add(cpTreeEntry{path: dir + "e/empty", mode: 0o640})
		add(cpTreeEntry{path: dir + "e/deep/", mode: 0o700})
		add(cpTreeEntry{path: dir + "e/deep/x", data: "x\n", mode: 0o644})
	}
	add(cpTreeEntry{path: "src/big", data: strings.Repeat("0123456789abcdef", 5000), mode: 0o644}) // 80,000 bytes
	add(cpTreeEntry{path: "src/top", data: "top\n", mode: 0o664})
	add(cpTreeEntry{path: "src/dangling", link: "nowhere"})
	add(cpTreeEntry{path: "src/d0/hard", hard: "src/top"})
	add(cpTreeEntry{path: "src/fifo", fifo: true, mode: 0o640})
	add(cpTreeEntry{path: "src/ro/", mode: 0o555})
	add(cpTreeEntry{path: "src/ro/a", data: "a\n", mode: 0o444})
	add(cpTreeEntry{path: "src/ro/b", data: "b\n", mode: 0o444})
	// A destination that already holds part of the tree (cp -r src have/).
	add(cpTreeEntry{path: "have/", mode: 0o755})
	add(cpTreeEntry{path: "have/src/", mode: 0o755})
	add(cpTreeEntry{path: "have/src/top", data: "old and longer content\n", mode: 0o600})
	add(cpTreeEntry{path: "have/src/d1/", mode: 0o700})
	add(cpTreeEntry{path: "have/src/d1/f0", data: "old\n", mode: 0o644})
	add(cpTreeEntry{path: "have/src/d1/keep", data: "kept\n", mode: 0o644})
	return es
}

// cpTreeStore makes the fixture in a store under /work; directory modes are
// set after their contents, as on the host.
func cpTreeStore(t *testing.T) *vfs.FS {
	t.Helper()
	ctx := context.Background()
	f := newStore(t, nil)
	es := cpTreeFixture()
	for _, e := range es {
		p := "/work/" + strings.TrimSuffix(e.path, "/")
		var err error
		switch {
		case strings.HasSuffix(e.path, "/"):
			err = f.Mkdir(ctx, p, 0o755)
		case e.link != "":
			err = f.Symlink(ctx, e.link, p)
		case e.hard != "":
			err = f.Link(ctx, "/work/"+e.hard, p)
		case e.fifo:
			err = f.Mknod(ctx, p, vfs.S_IFIFO|uint32(e.mode), 0)
		default:
			if err = f.WriteFile(ctx, p, []byte(e.data), 0o644); err == nil {
				err = f.Chmod(ctx, p, e.mode)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := len(es) - 1; i >= 0; i-- {
		if e := es[i]; strings.HasSuffix(e.path, "/") {
			if err := f.Chmod(ctx, "/work/"+strings.TrimSuffix(e.path, "/"), e.mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	return f
}

// cpTreeHost makes the fixture in dir on the host.
func cpTreeHost(t *testing.T, dir string) {
	t.Helper()
	es := cpTreeFixture()
	for _, e := range es {
		p := filepath.Join(dir, e.path)
		var err error
		switch {
		case strings.HasSuffix(e.path, "/"):
			err = os.Mkdir(p, 0o755)
		case e.link != "":
			err = os.Symlink(e.link, p)
		case e.hard != "":
			err = os.Link(filepath.Join(dir, e.hard), p)
		case e.fifo:
			if err = syscall.Mkfifo(p, uint32(e.mode)); err == nil {
				err = os.Chmod(p, e.mode|fs.ModeNamedPipe)
			}
		default:
			if err = os.WriteFile(p, []byte(e.data), 0o644); err == nil {
				err = os.Chmod(p, e.mode)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := len(es) - 1; i >= 0; i-- {
		if e := es[i]; strings.HasSuffix(e.path, "/") {
			if err := os.Chmod(filepath.Join(dir, e.path), e.mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() { // read-only directories: let TempDir's cleanup remove them
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
	})
}

// cpTreeLine describes one file of a tree for comparison: path, type and
// permission bits, and the content's hash or the link's target; with
// srcTime, whether its modification time is the source's (srcTime gives
// the time of the source at rel).
func cpTreeLine(rel string, mode fs.FileMode, nlink uint64, data []byte, target string, mtime time.Time, srcTime func(rel string) (time.Time, bool)) string {
	s := fmt.Sprintf("%s %s", rel, mode)
	switch {
	case mode&fs.ModeSymlink != 0:
		s += " -> " + target
	case mode.IsRegular():
		s += fmt.Sprintf(" %d %x links %d", len(data), sha256.Sum256(data), nlink)
	}
	if srcTime != nil && mode&fs.ModeSymlink == 0 {
		if st, ok := srcTime(rel); !ok {
			s += " (no source)"
		} else if st.Equal(mtime) {
			s += " mtime kept"
		} else {
			s += " mtime new"
		}
	}
	return s
}

// cpTreeDumpStore lists the tree under root in the store.
func cpTreeDumpStore(t *testing.T, f *vfs.FS, root, src string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	var walk func(p, rel string)
	walk = func(p, rel string) {
		fi, err := f.Lstat(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var data []byte
		var target string
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err = f.Readlink(ctx, p)
		case fi.Mode().IsRegular():
			data, err = f.ReadFile(ctx, p)
		}
		if err != nil {
			t.Fatal(err)
		}
		var srcTime func(string) (time.Time, bool)
		if src != "" {
			srcTime = func(rel string) (time.Time, bool) {
				sfi, err := f.Lstat(ctx, src+strings.TrimPrefix(rel, "."))
				if err != nil {
					return time.Time{}, false
				}
				return sfi.ModTime(), true
			}
		}
		out = append(out, cpTreeLine(rel, fi.Mode(), uint64(fi.Attr().Nlink), data, target, fi.ModTime(), srcTime))
		if fi.IsDir() {
			ents, err := f.ReadDir(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				walk(p+"/"+e.Name, rel+"/"+e.Name)
			}
		}
	}
	walk(root, ".")
	sort.Strings(out)
	return out
}

// cpTreeDumpHost lists the tree under root on the host.
func cpTreeDumpHost(t *testing.T, root, src string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel != "." {
			rel = "./" + rel
		}
		var data []byte
		var target string
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err = os.Readlink(p)
		case fi.Mode().IsRegular():
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return err
		}
		var srcTime func(string) (time.Time, bool)
		if src != "" {
			srcTime = func(rel string) (time.Time, bool) {
				sfi, err := os.Lstat(filepath.Join(src, rel))
				if err != nil {
					return time.Time{}, false
				}
				return sfi.ModTime(), true
			}
		}
		out = append(out, cpTreeLine(rel, fi.Mode(), uint64(fi.Sys().(*syscall.Stat_t).Nlink), data, target, fi.ModTime(), srcTime))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestCpTree_gnu copies the fixture tree with desk's cp and with GNU cp
// (umask 022) and compares the trees made: names, types, modes, contents,
// link targets and, with -a and -p, modification times; stdout (sorted:
// both list in directory order), stderr and the status too. The rows run
// with the read-ahead bounds as shipped and with bounds small enough that
// listings spill over to the per-directory path and files over the content
// bound are opened one by one.
func TestCpTree_gnu(t *testing.T) {
	if _, err := exec.LookPath("cp"); err != nil {
		requireTool(t, "cp")
	}
	rows := []struct {
		name string
		args []string
		root string // the tree compared
		src  string // with -p: the source whose times the copy keeps
	}{
		{"new", []string{"cp", "-r", "src", "copy"}, "copy", ""},
		{"new verbose", []string{"cp", "-rv", "src", "copy"}, "copy", ""},
		{"into existing", []string{"cp", "-r", "src", "have"}, "have", ""},
		{"into existing verbose", []string{"cp", "-Rv", "src", "have/"}, "have", ""},
		{"no target dir onto existing", []string{"cp", "-rT", "src", "have/src"}, "have", ""},
		{"archive", []string{"cp", "-a", "src", "copy"}, "copy", "src"},
		{"preserve", []string{"cp", "-rp", "src", "copy"}, "copy", "src"},
		{"no clobber into existing", []string{"cp", "-rn", "src", "have"}, "have", ""},
		{"two sources", []string{"cp", "-r", "src/d0", "src/d1", "have"}, "have", ""},
		{"dereference", []string{"cp", "-rL", "src/d2", "copy"}, "copy", ""},
	}
	bounds := []struct {
		name             string
		entries, content int64
	}{{"shipped", int64(cpTreeEntries), cpPageContent}, {"small", 5, 100}}
	for _, bd := range bounds {
		for _, r := range rows {
			t.Run(bd.name+"/"+r.name, func(t *testing.T) {
				oldE, oldC := cpTreeEntries, cpPageContent
				cpTreeEntries, cpPageContent = int(bd.entries), bd.content
				defer func() { cpTreeEntries, cpPageContent = oldE, oldC }()

				f := cpTreeStore(t)
				out, errs, st := runIn(t, f, "/work", "", r.args...)
				srcIn := func(base string) string {
					if r.src == "" {
						return ""
					}
					return base + "/" + r.src
				}
				got := cpTreeDumpStore(t, f, "/work/"+r.root, srcIn("/work"))

				host := t.TempDir()
				cpTreeHost(t, host)
				cmd := exec.Command("sh", "-c", `umask 022 && exec "$@"`, "sh")
				cmd.Args = append(cmd.Args, r.args...)
				cmd.Dir = host
				cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin", "TZ=UTC"}
				hout, herrs, hst := runGNU(t, cmd)
				want := cpTreeDumpHost(t, filepath.Join(host, r.root), srcIn(host))
				if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
					t.Errorf("%q: trees differ\n desk:\n%s\n GNU:\n%s", r.args, g, w)
				}
				if fuSortLines(out) != fuSortLines(hout) || errs != herrs || st != hst {
					t.Errorf("%q:\n desk out=%q err=%q status=%d\n  GNU out=%q err=%q status=%d",
						r.args, out, errs, st, hout, herrs, hst)
				}
			})
		}
	}
}

// cpDenyAccess refuses changes under one path (a policy's path rule).
type cpDenyAccess string

func (d cpDenyAccess) AllowPath(p string, write bool) syscall.Errno {
	if write && (p == string(d) || strings.HasPrefix(p, string(d)+"/")) {
		return syscall.EACCES
	}
	return 0
}

// TestCpTree_batchRefused: a refusal in the middle of a run of files that
// cp writes in one batch undoes nothing else: the batch is dropped whole
// and the run is copied file by file, so every other file is copied and
// the refused one is reported once, as without the batch.
func TestCpTree_batchRefused(t *testing.T) {
	f := cpTreeStore(t)
	var out, errb bytes.Buffer
	env := &Env{
		Ctx: vfs.WithAccess(context.Background(), cpDenyAccess("/work/copy/d1/f3")), FS: f, Dir: "/work",
		Stdin: strings.NewReader(""), NoStdin: true, Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
		Limits: Limits{MaxReadBytes: 64 << 20},
	}
	st := Cp(env, []string{"cp", "-rv", "src", "copy"})
	if st != 1 {
		t.Errorf("status %d, want 1", st)
	}
	if want := "cp: error writing 'copy/d1/f3': Permission denied\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	if strings.Contains(out.String(), "copy/d1/f3'") || !strings.Contains(out.String(), "'src/d1/f4' -> 'copy/d1/f4'") {
		t.Errorf("verbose output:\n%s", out.String())
	}
	if _, e, st := runIn(t, f, "/work", "", "cp", "-r", "src", "whole"); st != 0 {
		t.Fatalf("cp -r src whole: %s", e)
	}
	got := cpTreeDumpStore(t, f, "/work/copy", "")
	whole := cpTreeDumpStore(t, f, "/work/whole", "")
	var want []string
	for _, l := range whole {
		if !strings.HasPrefix(l, "./d1/f3 ") {
			want = append(want, l)
		}
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("copy differs from a whole copy less d1/f3\n copy:\n%s\n want:\n%s", g, w)
	}
}

// TestCpTree_storeCopyRefused: cp -r into a new directory copies with the
// store's tree copy (vfs.FS.CopyTree), which a path rule refuses whole;
// cp then copies file by file, so the result and the one message are GNU
// cp's: every other file copied, the refused one reported.
func TestCpTree_storeCopyRefused(t *testing.T) {
	f := cpTreeStore(t)
	var out, errb bytes.Buffer
	env := &Env{
		Ctx: vfs.WithAccess(context.Background(), cpDenyAccess("/work/copy/d1/f3")), FS: f, Dir: "/work",
		Stdin: strings.NewReader(""), NoStdin: true, Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
		Limits: Limits{MaxReadBytes: 64 << 20},
	}
	if st := Cp(env, []string{"cp", "-r", "src", "copy"}); st != 1 {
		t.Errorf("status %d, want 1", st)
	}
	if want := "cp: error writing 'copy/d1/f3': Permission denied\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	if _, e, st := runIn(t, f, "/work", "", "cp", "-r", "src", "whole"); st != 0 {
		t.Fatalf("cp -r src whole: %s", e)
	}
	got := cpTreeDumpStore(t, f, "/work/copy", "")
	var want []string
	for _, l := range cpTreeDumpStore(t, f, "/work/whole", "") {
		if !strings.HasPrefix(l, "./d1/f3 ") {
			want = append(want, l)
		}
	}
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("copy differs from a whole copy less d1/f3\n copy:\n%s\n want:\n%s", g, w)
	}
}
