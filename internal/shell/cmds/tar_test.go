package cmds

import (
	"context"
	"path"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// tarFixtureTGZ is `tar --sort=name --owner=root --group=root -czf` by GNU
// tar 1.34 of d/ (0755), d/f (0600, "hello world\n"), d/h (hard link to
// d/f), d/l -> f, d/sub/ and d/sub/big (100 x's), all at 2026-11-30 01:02:03
// UTC. tarFixtureEvil holds /abs/x, ../up and ok.
const tarFixtureTGZ = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xed\xd6K\x0a\xc20\x14\x05\xd0\x8c]Ev\x90\xbc|\x9a\xf5Xb\xad\x10\x08\xf4\x83.\xdf\xd0\x89\x18Q\xe9\xa0O\xa4\xf7LR\xd2\x8ez\xc9\xcd\x8bJlN\x17\xc1\xfbe-\xeauy&o\xb5%\xe7\x1d\xd9\xb2\x1fBh\x84\xf4\x82\xc1<N\xc7AJ1\xe4<}\xfa\xee\xdb\xfb?\x15U\xc7\x92\x7f\xf3\x9a\xfb#\x7fr\xcf\xf9\x93&KBj\xe4\xbf\xb9\xfe\x94R\x96\xd7<\xa4x\x10\xb0;Q\xf5\xbf?\xffu\xff\x93\xf6F\x0bI\x1c\xe5\xb4\xfb\xfeO<\xf7\x7f\x08k\xf2\xb7\xa6\xf4\xbf\xe9\x18~\xc0\xee\xf3\x1f\xe7V1\xe4\xbff\xfe+\xe7\xbf\x09\x98\xff\xf8\xf2o/\xe7\xad\xfb\xdf\xb9\xb7\xf9\x93\xab\xe7?2\xde`\xfe\xe3pc\x80)\x0b\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\xcf\x1d\xe2\x8c\xa3\x0d\x00(\x00\x00"
const tarFixtureEvil = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xed\xd31\x0e\xc20\x0c@Q\xcf\x9c\x22'h\x12b\xd3\xf3\x04\xb11\x04\xb5\xa9\xc4\xf1\x09\x8c\x0cP!\x05\x81\xfa\xdfb\xc9\x89\xe4\xe9\xfb|\x9c\xfdU\xba\x0a\xcdA\xf51\x9b\xe7\xd9\x98DK!EU\xbd\xefc0\x1b\xc5\x05\xf9\x82e\xaeyrN\xa6R\xea\xab\x7f\xef\xde\xff\xd4)\xd7\xbc\x13l\xd50\xf8\xe5\x22?\xd7\x7f\xda'\xfa\xa7\x7f\xf4V\xce\xfdo|\xd0\x7f\x18\x8d\xfe\xe9\x1f\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xb0\xd6\x0d\x81\x15\xbe\x8c\x00(\x00\x00"

func TestTarRows(t *testing.T) {
	fx := map[string]string{"fx.tgz": tarFixtureTGZ}
	list := "d/\nd/f\nd/h\nd/l\nd/sub/\nd/sub/big\n"
	rows := []textRow{
		{name: "t", files: fx, args: []string{"tar", "tf", "fx.tgz"}, out: list},
		{name: "tz dash", files: fx, args: []string{"tar", "-tzf", "fx.tgz"}, out: list},
		{name: "stdin", stdin: tarFixtureTGZ, args: []string{"tar", "-tz"}, out: list},
		{name: "tv", files: fx, args: []string{"tar", "tvf", "fx.tgz"}, out: "drwxr-xr-x root/root         0 2026-11-30 01:02 d/\n" +
			"-rw------- root/root        12 2026-11-30 01:02 d/f\n" +
			"hrw------- root/root         0 2026-11-30 01:02 d/h link to d/f\n" +
			"lrwxrwxrwx root/root         0 2026-11-30 01:02 d/l -> f\n" +
			"drwxr-xr-x root/root         0 2026-11-30 01:02 d/sub/\n" +
			"-rw-r--r-- root/root       100 2026-11-30 01:02 d/sub/big\n"},
		{name: "members", files: fx, args: []string{"tar", "tf", "fx.tgz", "d/sub"}, out: "d/sub/\nd/sub/big\n"},
		{name: "member missing", files: fx, args: []string{"tar", "tf", "fx.tgz", "nope"},
			errOut: "tar: nope: Not found in archive\ntar: Exiting with failure status due to previous errors\n", code: 2},
		{name: "exclude", files: fx, args: []string{"tar", "--exclude=sub", "-tf", "fx.tgz"}, out: "d/\nd/f\nd/h\nd/l\n"},
		{name: "O", files: fx, args: []string{"tar", "xOf", "fx.tgz", "d/f"}, out: "hello world\n"},
		{name: "xv strip", files: map[string]string{"fx.tgz": tarFixtureTGZ, "o/": ""},
			args: []string{"tar", "xvf", "fx.tgz", "-C", "o", "--strip-components=1"}, out: "d/f\nd/h\nd/l\nd/sub/\nd/sub/big\n"},
		{name: "no archive", args: []string{"tar", "xf", "nope.tar"},
			errOut: "tar: nope.tar: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n", code: 2},
		{name: "no dir", files: fx, args: []string{"tar", "xf", "fx.tgz", "-C", "nodir"},
			errOut: "tar: nodir: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\n", code: 2},
		{name: "missing file", args: []string{"tar", "cf", "z.tar", "missing"},
			errOut: "tar: missing: Cannot stat: No such file or directory\ntar: Exiting with failure status due to previous errors\n", code: 2},
		{name: "no mode", args: []string{"tar"},
			errOut: "tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\nTry 'tar --help' or 'tar --usage' for more information.\n", code: 2},
		{name: "old f", args: []string{"tar", "tf"},
			errOut: "tar: Old option 'f' requires an argument.\nTry 'tar --help' or 'tar --usage' for more information.\n", code: 2},
		{name: "not tar", files: map[string]string{"g.tar": "garbage\n"}, args: []string{"tar", "tf", "g.tar"},
			errOut: "tar: This does not look like a tar archive\ntar: Exiting with failure status due to previous errors\n", code: 2},
		{name: "evil t", files: map[string]string{"e.tgz": tarFixtureEvil}, args: []string{"tar", "tf", "e.tgz"},
			out: "/abs/x\n../up\nok\n", errOut: "tar: Removing leading `/' from member names\ntar: Removing leading `../' from member names\n"},
		{name: "evil x", files: map[string]string{"e.tgz": tarFixtureEvil}, args: []string{"tar", "xf", "e.tgz"},
			errOut: "tar: Removing leading `/' from member names\ntar: Removing leading `../' from member names\n" +
				"tar: ../up: Member name contains '..'\ntar: Exiting with failure status due to previous errors\n", code: 2},
	}
	runTextRows(t, rows)
}

// tarTree describes a workspace tree: type, mode, content or target, mtime
// and inode for each path under root.
func tarTree(t *testing.T, f *vfs.FS, root string) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	var walk func(p, rel string)
	walk = func(p, rel string) {
		fi, err := f.Lstat(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		a := fi.Attr()
		d := vfs.ModeString(a.Mode) + " " + a.Mtime.UTC().Truncate(time.Second).Format(time.RFC3339)
		switch {
		case a.IsSymlink():
			tg, _ := f.Readlink(ctx, p)
			d += " -> " + tg
			d = vfs.ModeString(a.Mode) + " -> " + tg // symlink mtimes are not compared
		case a.IsRegular():
			d += " " + readFile(t, f, p)
			if a.Nlink > 1 {
				d += " (linked)"
			}
		case a.IsDir():
			ents, err := f.ReadDir(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				walk(path.Join(p, e.Name), path.Join(rel, e.Name))
			}
		}
		out[rel] = d
	}
	walk(root, ".")
	return out
}

func TestTarRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newStore(t, map[string]string{"src/a": "alpha\n", "src/bin/run": "#!/bin/sh\n", "src/secret": "s\n",
		"src/link": "->a", "src/empty/": "", "out/": "", "out2/": ""})
	mt := time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.Chmod(ctx, "/work/src/bin/run", 0o755))
	must(f.Chmod(ctx, "/work/src/secret", 0o600))
	must(f.Link(ctx, "/work/src/a", "/work/src/hard"))
	must(f.Chmod(ctx, "/work/src/empty", 0o700))
	for _, p := range []string{"a", "bin/run", "secret", "empty", "bin", "."} {
		must(f.Chtimes(ctx, path.Join("/work/src", p), mt, mt))
	}
	if _, e, c := runIn(t, f, "/work", "", "tar", "czf", "x.tgz", "-C", "src", "."); c != 0 || e != "" {
		t.Fatalf("create: %q %d", e, c)
	}
	if _, e, c := runIn(t, f, "/work", "", "tar", "-xzf", "x.tgz", "-C", "out"); c != 0 || e != "" {
		t.Fatalf("extract: %q %d", e, c)
	}
	want, got := tarTree(t, f, "/work/src"), tarTree(t, f, "/work/out")
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d entries, want %d: %v", len(got), len(want), got)
	}
	a, _ := f.Lstat(ctx, "/work/out/a")
	h, _ := f.Lstat(ctx, "/work/out/hard")
	if a.Attr().Ino != h.Attr().Ino {
		t.Error("hard link not preserved")
	}
	// Extract the archive real tar made; then list it back.
	must(f.WriteFile(ctx, "/work/fx.tgz", []byte(tarFixtureTGZ), 0o644))
	if _, e, c := runIn(t, f, "/work/out2", "", "tar", "xf", "../fx.tgz"); c != 0 || e != "" {
		t.Fatalf("extract fixture: %q %d", e, c)
	}
	tr := tarTree(t, f, "/work/out2/d")
	if tr["f"] != "-rw------- 2026-11-30T01:02:03Z hello world\n (linked)" || tr["l"] != "lrwxrwxrwx -> f" ||
		tr["sub"] != "drwxr-xr-x 2026-11-30T01:02:03Z" {
		t.Errorf("fixture tree: %v", tr)
	}
	// Leading "/" is removed; the archive itself is skipped.
	out, e, c := runIn(t, f, "/work", "", "tar", "cvf", "/work/src/self.tar", "/work/src/a", "src")
	if c != 0 || e != "tar: Removing leading `/' from member names\ntar: src/self.tar: file is the archive; not dumped\n" ||
		out != "work/src/a\nsrc/\nsrc/a\nsrc/bin/\nsrc/bin/run\nsrc/empty/\nsrc/hard\nsrc/link\nsrc/secret\n" {
		t.Errorf("cvf: %q %q %d", out, e, c)
	}
	// -k refuses to overwrite.
	_, e, c = runIn(t, f, "/work", "", "tar", "xkf", "x.tgz", "-C", "out")
	if c != 2 || e == "" {
		t.Errorf("-k: %q %d", e, c)
	}
	// Cancellation stops the command.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	env := &Env{Ctx: cctx, FS: f, Dir: "/work", Stdin: nil, Stdout: &bytesBuffer{}, Stderr: &bytesBuffer{}}
	if c := Tar(env, []string{"tar", "xf", "x.tgz", "-C", "out"}); c == 0 {
		t.Error("cancelled tar succeeded")
	}
}
