package cmds

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// foCase is one row of a differential test of a command that changes files
// (truncate, chown, unlink, install, mknod, unzip, zip): the fixture, as
// newStore and fuHostFixture make it, commands run before (prep: desk's
// own on the store, the real ones on the host, each of which must
// succeed), and the command compared.
type foCase struct {
	name  string
	files map[string]string
	prep  [][]string
	args  []string
	// unordered compares stdout's lines sorted: GNU lists a directory in
	// its on-disk order, desk in name order.
	unordered bool
	// errMask, when set, rewrites both stderrs before they are compared
	// (dd's statistics hold the time the copy took).
	errMask func(string) string
}

// foOwnersStore lists each file under root with its owner, group and device
// number, sorted; with cpTreeDumpStore's lines it describes what a
// command changed.
func foOwnersStore(t *testing.T, f *vfs.FS, root string) []string {
	t.Helper()
	var out []string
	var walk func(p, rel string)
	walk = func(p, rel string) {
		fi, err := f.Lstat(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		a := fi.Attr()
		out = append(out, fmt.Sprintf("%s %d:%d rdev %d", rel, a.Uid, a.Gid, a.Rdev))
		if fi.IsDir() {
			ents, err := f.ReadDir(context.Background(), p)
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

// foOwnersHost is foOwnersStore on the host.
func foOwnersHost(t *testing.T, root string) []string {
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
		st := fi.Sys().(*syscall.Stat_t)
		out = append(out, fmt.Sprintf("%s %d:%d rdev %d", rel, st.Uid, st.Gid, st.Rdev))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// foRunGNU runs each row with desk's command on a store and with the real
// tool on a host directory (as root, umask 022, LANG=C.UTF-8: the
// harness's locale), in /work and its host counterpart, and compares
// stdout, stderr, the status and the trees left: names, types, modes,
// contents, link targets (cpTreeDumpStore's lines), owners and device
// numbers. Host paths in the real tool's output are replaced by /work's.
func foRunGNU(t *testing.T, cases []foCase) {
	t.Helper()
	testenv.NeedRoot(t) // the real tool's files are the store's: root's
	for _, c := range cases {
		if _, err := exec.LookPath(c.args[0]); err != nil {
			requireTool(t, c.args[0])
		}
		t.Run(c.name, func(t *testing.T) {
			f := newStore(t, c.files)
			for _, p := range c.prep {
				if _, e, st := runIn(t, f, "/work", "", p...); st != 0 {
					t.Fatalf("desk %q: %s", p, e)
				}
			}
			out, errs, st := runIn(t, f, "/work", "", c.args...)
			got := cpTreeDumpStore(t, f, "/work", "")
			gotOwn := foOwnersStore(t, f, "/work")

			root := t.TempDir()
			root, _ = filepath.EvalSymlinks(root)
			work := filepath.Join(root, "work")
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			fuHostFixture(t, root, c.files)
			host := func(args []string) *exec.Cmd {
				cmd := exec.Command("sh", "-c", `umask 022 && exec "$@"`, "sh")
				cmd.Args = append(cmd.Args, args...)
				cmd.Dir = work
				cmd.Env = []string{"LANG=C.UTF-8", "PATH=/usr/bin:/bin", "HOME=" + work, "TZ=UTC"}
				return cmd
			}
			for _, p := range c.prep {
				if _, e, st := runGNU(t, host(p)); st != 0 {
					t.Fatalf("GNU %q: %s", p, e)
				}
			}
			hout, herrs, hst := runGNU(t, host(c.args))
			hout, herrs = strings.ReplaceAll(hout, work, "/work"), strings.ReplaceAll(herrs, work, "/work")
			want := cpTreeDumpHost(t, work, "")
			wantOwn := foOwnersHost(t, work)
			if c.errMask != nil {
				errs, herrs = c.errMask(errs), c.errMask(herrs)
			}
			cmpOut, cmpHout := out, hout
			if c.unordered {
				cmpOut, cmpHout = fuSortLines(out), fuSortLines(hout)
			}
			if cmpOut != cmpHout || errs != herrs || st != hst {
				t.Errorf("%q:\n desk out=%q err=%q status=%d\n  GNU out=%q err=%q status=%d",
					c.args, out, errs, st, hout, herrs, hst)
			}
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Errorf("%q: trees differ\n desk:\n%s\n GNU:\n%s", c.args, g, w)
			}
			if g, w := strings.Join(gotOwn, "\n"), strings.Join(wantOwn, "\n"); g != w {
				t.Errorf("%q: owners differ\n desk:\n%s\n GNU:\n%s", c.args, g, w)
			}
		})
	}
}
