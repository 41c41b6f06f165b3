package main

import (
	"archive/tar"
	"bytes"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/fsio/fsiotest"
	"github.com/desk-dev/desk/internal/testenv"
)

// desk runs the CLI in-process and returns its output and exit status.
func desk(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, bytes.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// mustDesk runs the CLI and fails the test unless it exits 0.
func mustDesk(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	out, errs, code := desk(t, stdin, args...)
	if code != 0 {
		t.Fatalf("desk %s: exit %d\nstderr: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

// makeTree builds a host source tree with the things import/export must keep.
func makeTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "src")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"cmd/tool", "empty", "docs/deep/er"} {
		must(os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	files := map[string]string{
		"go.mod":            "module example\n",
		"cmd/tool/main.go":  "package main\n\nfunc main() {}\n",
		"README.md":         strings.Repeat("lorem ipsum\n", 5000),
		"docs/deep/er/x.md": "deep",
		"run.sh":            "#!/bin/sh\n",
	}
	for name, data := range files {
		must(os.WriteFile(filepath.Join(root, name), []byte(data), 0o644))
	}
	must(os.Chmod(filepath.Join(root, "run.sh"), 0o4755|os.ModeSetuid))
	must(os.Chmod(filepath.Join(root, "empty"), 0o1777|os.ModeSticky))
	must(os.Symlink("README.md", filepath.Join(root, "readme")))
	must(os.Symlink("/absolute/elsewhere", filepath.Join(root, "docs/abs")))
	must(os.Link(filepath.Join(root, "go.mod"), filepath.Join(root, "cmd/go.mod.link")))
	base := time.Date(2020, 1, 2, 3, 4, 5, 987654321, time.UTC)
	fsiotest.SetTimes(t, root, func(i int) (time.Time, time.Time) {
		m := base.Add(time.Duration(i) * (time.Minute + 3*time.Nanosecond))
		return m.Add(time.Hour + 5*time.Nanosecond), m
	})
	return root
}

// tarEntry is what an archive says about one entry.
type tarEntry struct {
	typ          byte
	mode         int64
	link         string
	body         []byte
	mtime, atime time.Time
}

func readTar(t *testing.T, data []byte) (map[string]tarEntry, []string) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(data))
	ents := map[string]tarEntry{}
	var order []string
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return ents, order
		}
		if err != nil {
			t.Fatalf("reading exported tar: %v", err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(hdr.Name, "/")
		if _, dup := ents[name]; dup {
			t.Errorf("entry %q appears twice", name)
		}
		ents[name] = tarEntry{hdr.Typeflag, hdr.Mode, hdr.Linkname, body, hdr.ModTime, hdr.AccessTime}
		order = append(order, name)
	}
}

// compareWithHost checks an exported archive entry by entry against the host
// tree it was imported from: content byte for byte, all 12 mode bits,
// symlink targets, hard links and nanosecond times.
func compareWithHost(t *testing.T, root string, data []byte) {
	t.Helper()
	ents, order := readTar(t, data)
	if len(order) == 0 || order[0] != "." {
		t.Errorf("first entry %q, want \"./\"", order)
	}
	seen := map[string]bool{}
	inodes := map[uint64]string{}
	// WalkDir (unlike Walk) visits a directory before reading it, so the
	// Lstat below sees the atime the import saw.
	err := filepath.WalkDir(root, func(p string, _ iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		seen[rel] = true
		e, ok := ents[rel]
		if !ok {
			t.Errorf("%s: missing from the archive", rel)
			return nil
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		if got, want := e.mode, int64(st.Mode&0o7777); got != want && st.Mode&unix.S_IFMT != unix.S_IFLNK {
			t.Errorf("%s: mode %#o, want %#o", rel, got, want)
		}
		if got, want := e.mtime.UnixNano(), st.Mtim.Nano(); got != want {
			t.Errorf("%s: mtime %d, want %d", rel, got, want)
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			if e.typ != tar.TypeDir {
				t.Errorf("%s: type %q, want a directory", rel, e.typ)
			}
			if got, want := e.atime.UnixNano(), st.Atim.Nano(); got != want {
				t.Errorf("%s: atime %d, want %d", rel, got, want)
			}
		case unix.S_IFLNK:
			target, _ := os.Readlink(p)
			if e.typ != tar.TypeSymlink || e.link != target {
				t.Errorf("%s: %q -> %q, want a symlink to %q", rel, e.typ, e.link, target)
			}
		case unix.S_IFREG:
			if first, ok := inodes[st.Ino]; ok {
				if e.typ != tar.TypeLink || e.link != first {
					t.Errorf("%s: %q -> %q, want a hard link to %q", rel, e.typ, e.link, first)
				}
				return nil
			}
			inodes[st.Ino] = rel
			f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOATIME, 0)
			if err != nil {
				return err
			}
			want, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return err
			}
			if e.typ != tar.TypeReg || !bytes.Equal(e.body, want) {
				t.Errorf("%s: type %q, %d bytes; want a regular file with the host's %d bytes", rel, e.typ, len(e.body), len(want))
			}
			if got, want := e.atime.UnixNano(), st.Atim.Nano(); got != want {
				t.Errorf("%s: atime %d, want %d", rel, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range ents {
		if !seen[name] {
			t.Errorf("archive has %q, which the host tree does not", name)
		}
	}
}

func TestFS_ImportExportRoundTrip(t *testing.T) {
	src := makeTree(t)
	dir := t.TempDir()
	db1, db2, db3 := filepath.Join(dir, "one.db"), filepath.Join(dir, "two.db"), filepath.Join(dir, "three.db")

	_, errs, code := desk(t, nil, "fs", "-db", db1, "import", "-C", "/proj", src)
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	if !regexp.MustCompile(`^desk fs import: 5 files, 7 directories, 2 symlinks, 1 hard links; .* into /proj\n$`).MatchString(errs) {
		t.Errorf("import summary = %q", errs)
	}
	tar1 := mustDesk(t, nil, "fs", "-db", db1, "export", "-q", "-C", "/proj")
	compareWithHost(t, src, []byte(tar1))

	// The archive imported into a second workspace (from standard input)
	// exports to the same bytes.
	mustDesk(t, []byte(tar1), "fs", "-db", db2, "import", "-q", "-")
	tar2 := mustDesk(t, nil, "fs", "-db", db2, "export", "-q")
	if tar1 != tar2 {
		t.Errorf("re-exported archive differs: %d vs %d bytes", len(tar1), len(tar2))
	}

	// Through a gzip-compressed file.
	gz := filepath.Join(dir, "copy.tar.gz")
	mustDesk(t, nil, "fs", "-db", db2, "export", "-q", "-o", gz)
	if data, err := os.ReadFile(gz); err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("%s is not gzip data: %v", gz, err)
	}
	mustDesk(t, nil, "fs", "-db", db3, "import", "-q", "-C", "/x", gz)
	tar3 := mustDesk(t, nil, "fs", "-db", db3, "export", "-q", "-C", "/x")
	if tar1 != tar3 {
		t.Errorf("archive via .tar.gz differs: %d vs %d bytes", len(tar1), len(tar3))
	}
	if out := mustDesk(t, nil, "fs", "-db", db3, "check"); !strings.HasSuffix(out, ": ok\n") {
		t.Errorf("check = %q", out)
	}
}

func TestFS_Verbs(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ws.db")
	fs := func(stdin []byte, args ...string) string {
		t.Helper()
		return mustDesk(t, stdin, append([]string{"fs", "-db", db}, args...)...)
	}
	// Relative paths are taken from /workspace, which a new database has.
	fs(nil, "mkdir", "-p", "a/b/c")
	fs(nil, "mkdir", "/workspace/d")
	fs([]byte("hello\n"), "put", "a/hello.txt")
	host := filepath.Join(dir, "host.sh")
	if err := os.WriteFile(host, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(host, 0o4750|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	fs(nil, "put", "d/", host) // into a directory, keeping the host mode

	if got := fs(nil, "cat", "a/hello.txt", "/workspace/d/host.sh"); got != "hello\n#!/bin/sh\n" {
		t.Errorf("cat = %q", got)
	}
	if got := fs(nil, "ls"); got != "a\nd\n" {
		t.Errorf("ls = %q", got)
	}
	if got := fs(nil, "ls", "/"); got != "tmp\nworkspace\n" {
		t.Errorf("ls / = %q", got)
	}
	if got := fs(nil, "ls", "-l", "d"); !regexp.MustCompile(`^-rwsr-x--- +1 +\d+ +\d+ +10 \d{4}-\d\d-\d\d \d\d:\d\d host.sh\n$`).MatchString(got) {
		t.Errorf("ls -l = %q", got)
	}
	stat := fs(nil, "stat", "d/host.sh")
	for _, want := range []string{"File: /workspace/d/host.sh", "Type: regular file", "Mode: 4750 (-rwsr-x---)", "Links: 1", "Size: 10", "Inode: ", "Uid: ", "Gid: ", "Blocks: "} {
		if !strings.Contains(stat, want) {
			t.Errorf("stat output lacks %q:\n%s", want, stat)
		}
	}
	if !regexp.MustCompile(`Modify: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}`).MatchString(stat) {
		t.Errorf("stat has no nanosecond mtime:\n%s", stat)
	}
	// /workspace is a directory 0755 of 0:0 (root in the sandbox).
	if st := fs(nil, "stat", "/workspace"); !strings.Contains(st, "Mode: 0755 (drwxr-xr-x)") || !strings.Contains(st, "Uid: 0") || !strings.Contains(st, "Gid: 0") {
		t.Errorf("stat /workspace:\n%s", st)
	}

	out := filepath.Join(dir, "out.txt")
	fs(nil, "get", "a/hello.txt", out)
	if data, err := os.ReadFile(out); err != nil || string(data) != "hello\n" {
		t.Errorf("get to a host file: %q, %v", data, err)
	}
	if got := fs(nil, "get", "/workspace/a/hello.txt"); got != "hello\n" {
		t.Errorf("get to stdout = %q", got)
	}

	// put -p makes the missing parents; without it they are ENOENT.
	_, errs, code := desk(t, []byte("x"), "fs", "-db", db, "put", "p/q/r.txt")
	if code != 1 || !strings.Contains(errs, "(ENOENT)") {
		t.Errorf("put without -p into a missing directory: exit %d, %s", code, errs)
	}
	fs([]byte("deep\n"), "put", "-p", "p/q/r.txt")
	fs(nil, "put", "-p", "/outside/s/", host)
	if got := fs(nil, "cat", "/workspace/p/q/r.txt", "/outside/s/host.sh"); got != "deep\n#!/bin/sh\n" {
		t.Errorf("put -p: %q", got)
	}
	fs(nil, "rm", "-r", "p", "/outside")

	fs(nil, "mv", "a/hello.txt", "d") // into a directory
	fs(nil, "mv", "/workspace/d/host.sh", "d/renamed.sh")
	if got := fs(nil, "ls", "d"); got != "hello.txt\nrenamed.sh\n" {
		t.Errorf("ls after mv = %q", got)
	}
	wantTree := "/workspace\n├── a\n│   └── b\n│       └── c\n└── d\n    ├── hello.txt\n    └── renamed.sh\n\n4 directories, 2 files, 0 symlinks\n"
	if got := fs(nil, "tree"); got != wantTree {
		t.Errorf("tree =\n%s\nwant\n%s", got, wantTree)
	}
	fs(nil, "rm", "d/renamed.sh")
	fs(nil, "rm", "-r", "a")
	if got := fs(nil, "ls"); got != "d\n" {
		t.Errorf("ls after rm = %q", got)
	}
	stats := fs(nil, "stats")
	for _, want := range []string{"files         1\n", "dirs          4\n", "bytes         6 (6 B)\n", "inline files  1\n", "inline bytes  6 (6 B)\n", "chunk file    0 chunks, ", "dedup ratio"} {
		if !strings.Contains(stats, want) {
			t.Errorf("stats lacks %q:\n%s", want, stats)
		}
	}
	if got := fs(nil, "stats", "-json"); !strings.Contains(got, `"Files": 1`) {
		t.Errorf("stats -json = %s", got)
	}
	if got := fs(nil, "check"); got != db+": ok\n" {
		t.Errorf("check = %q", got)
	}
}

func TestFS_BadInput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ws.db")
	mustDesk(t, []byte("keep"), "fs", "-db", db, "put", "/keep.txt")
	mustDesk(t, nil, "fs", "-db", db, "mkdir", "/dir")
	missing := filepath.Join(dir, "missing.db")
	notDB := filepath.Join(dir, "text.db")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("not a database\n"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	notTar := filepath.Join(dir, "notes.tar")
	if err := os.WriteFile(notTar, bytes.Repeat([]byte("plain text\n"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	evil := func(name string) []byte {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Name: "fine.txt", Mode: 0o644, Size: 2, Typeflag: tar.TypeReg})
		tw.Write([]byte("ok"))
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: 4, Typeflag: tar.TypeReg})
		tw.Write([]byte("evil"))
		tw.Close()
		return buf.Bytes()
	}
	tests := []struct {
		name  string
		stdin []byte
		args  []string
		code  int
		msg   string // stderr must contain this
	}{
		{"no command", nil, nil, 2, "usage: desk"},
		{"unknown command", nil, []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"no verb", nil, []string{"fs", "-db", db}, 2, "missing verb"},
		{"unknown verb", nil, []string{"fs", "-db", db, "frob"}, 2, `unknown verb "frob"`},
		{"no db", nil, []string{"fs", "ls"}, 2, "-db PATH is required"},
		{"bad flag", nil, []string{"fs", "-db", db, "ls", "-z"}, 2, "-z"},
		{"too few args", nil, []string{"fs", "-db", db, "mv", "/a"}, 2, "desk fs mv: missing argument"},
		{"too many args", nil, []string{"fs", "-db", db, "tree", "/a", "/b"}, 2, "desk fs tree: too many arguments"},
		{"missing db", nil, []string{"fs", "-db", missing, "ls"}, 1, "desk fs ls: workspace database " + missing + " does not exist"},
		{"db is a directory", nil, []string{"fs", "-db", dir, "ls"}, 1, "is a directory"},
		{"db is not a database", nil, []string{"fs", "-db", notDB, "ls"}, 1, "desk fs ls: open workspace " + notDB},
		{"missing source", nil, []string{"fs", "-db", missing, "import", filepath.Join(dir, "nope")}, 1, "desk fs import: source " + filepath.Join(dir, "nope") + " does not exist"},
		{"not a tar", nil, []string{"fs", "-db", db, "import", notTar}, 1, "not an archive"},
		{"empty stdin", nil, []string{"fs", "-db", db, "import", "-"}, 1, "the input is empty"},
		{"dotdot entry", evil("../x"), []string{"fs", "-db", db, "import", "-"}, 1, `entry "../x"`},
		{"absolute entry", evil("/abs"), []string{"fs", "-db", db, "import", "-C", "/dir", "-"}, 1, `entry "/abs"`},
		{"cat missing", nil, []string{"fs", "-db", db, "cat", "/nope"}, 1, "desk fs cat: stat /nope: no such file or directory (ENOENT)"},
		{"cat dir", nil, []string{"fs", "-db", db, "cat", "/dir"}, 1, "(EISDIR)"},
		{"rm dir", nil, []string{"fs", "-db", db, "rm", "/dir"}, 1, "use -r"},
		{"rm root", nil, []string{"fs", "-db", db, "rm", "-r", "/"}, 1, "refusing to remove"},
		{"mkdir exists", nil, []string{"fs", "-db", db, "mkdir", "/dir"}, 1, "(EEXIST)"},
		{"mv noreplace", nil, []string{"fs", "-db", db, "mv", "-n", "/keep.txt", "/keep.txt"}, 1, "(EEXIST)"},
		{"put a directory", nil, []string{"fs", "-db", db, "put", "/x", dir}, 1, "use import"},
		{"get a directory", nil, []string{"fs", "-db", db, "get", "/dir"}, 1, "(EISDIR)"},
		{"export to missing dir", nil, []string{"fs", "-db", db, "export", "-o", filepath.Join(dir, "no", "x.tar")}, 1, "desk fs export:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := desk(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, errs)
			}
			if !strings.Contains(errs, tc.msg) {
				t.Errorf("stderr %q does not contain %q", errs, tc.msg)
			}
		})
	}
	// Nothing above created a database or changed the workspace.
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("%s was created: %v", missing, err)
	}
	if got := mustDesk(t, nil, "fs", "-db", db, "tree", "/"); got != "/\n├── dir\n├── keep.txt\n├── tmp\n└── workspace\n\n3 directories, 1 files, 0 symlinks\n" {
		t.Errorf("workspace changed by bad input:\n%s", got)
	}
	if got := mustDesk(t, nil, "fs", "-db", db, "check"); got != db+": ok\n" {
		t.Errorf("check = %q", got)
	}
}

func TestFS_Help(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"fs", "help"}, {"fs", "-h"}, {"fs", "help", "import"}, {"fs", "-db", "x", "export", "-h"}} {
		out, errs, code := desk(t, nil, args...)
		if code != 0 || !strings.Contains(out, "usage: desk") || errs != "" {
			t.Errorf("desk %v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	out, _, _ := desk(t, nil, "fs", "help", "import")
	if !strings.Contains(out, "-C DEST") || !strings.Contains(out, "-q") {
		t.Errorf("fs help import lacks the flags:\n%s", out)
	}
}

// TestFS_RealTreeRoundTrip imports a real source tree (a copy of the Go
// distribution's net/http: ~130 files, 2.5 MiB, testdata included) and checks
// that the export reproduces it byte for byte, with modes and times. The tree is
// copied first so nothing else (the compiler) touches its atimes meanwhile.
func TestFS_RealTreeRoundTrip(t *testing.T) {
	// The Go tree that runs the test always has its sources: go test builds
	// the standard library from them.
	src := filepath.Join(testenv.GOROOT(t), "src", "net", "http")
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("no Go source tree at %s: %v", src, err)
	}
	tree := filepath.Join(t.TempDir(), "http")
	if err := copyTree(src, tree); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "ws.db")
	mustDesk(t, nil, "fs", "-db", db, "import", "-q", "-C", "/src", tree)
	out := mustDesk(t, nil, "fs", "-db", db, "export", "-q", "-C", "/src")
	compareWithHost(t, tree, []byte(out))
	if out := mustDesk(t, nil, "fs", "-db", db, "check"); !strings.HasSuffix(out, ": ok\n") {
		t.Errorf("check = %q", out)
	}
}

// copyTree copies a host tree, keeping modes, symlinks and modification times.
func copyTree(src, dst string) error {
	type dirTime struct {
		path  string
		mtime time.Time
	}
	var dirs []dirTime
	err := filepath.WalkDir(src, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			dirs = append(dirs, dirTime{out, fi.ModTime()})
			return os.Mkdir(out, fi.Mode().Perm())
		case fi.Mode()&iofs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, out)
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, data, fi.Mode().Perm()); err != nil {
				return err
			}
			return os.Chtimes(out, fi.ModTime(), fi.ModTime())
		}
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chtimes(dirs[i].path, dirs[i].mtime, dirs[i].mtime); err != nil {
			return err
		}
	}
	return nil
}
