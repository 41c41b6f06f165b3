package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fsio/fsiotest"
	"golang.org/x/sys/unix"
)

// deskProc runs the desk CLI as a process of its own (the test binary,
// which is the desk binary when envTestRunDesk is set) and returns its
// output and exit status.
func deskProc(t *testing.T, dir string, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envTestRunDesk+"=1")
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func mustProc(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	out, errs, code := deskProc(t, dir, stdin, args...)
	if code != 0 {
		t.Fatalf("desk %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}

func sameTree(t *testing.T, what string, want, got map[string]fsiotest.Node) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		for k, w := range want {
			if g, ok := got[k]; !ok || g != w {
				t.Errorf("%s: %q: want %+v, got %+v (present %v)", what, k, w, g, ok)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: unexpected %q", what, k)
			}
		}
	}
}

// demoDeskProcess starts a desk serve process (startDeskProcess) with the
// admin token on a new data directory, points the client commands at it
// (DESK_URL, DESK_TOKEN), and creates its workspace demo.
func demoDeskProcess(t *testing.T, token string) {
	t.Helper()
	srv := startDeskProcess(t, t.TempDir(), token)
	t.Setenv(envURL, srv.url)
	t.Setenv(envToken, token)
	mustDesk(t, nil, "ws", "create", "demo")
}

// TestCp runs desk cp both ways, files and trees, as a process of its own
// against a real desk serve (a process too), and checks every result
// against the kernel's view of the source, docker cp's rules case by case.
// The workspace side is checked independently through GNU tar: a download
// of the tree endpoint extracted by tar.
func TestCp(t *testing.T) {
	demoDeskProcess(t, "cp-test-admin-token-0123456789abcdef")
	mustDesk(t, nil, "fs", "-w", "demo", "mkdir", "-p", "/workspace/existing")
	mustDesk(t, []byte("mine"), "fs", "-w", "demo", "put", "/workspace/existing/mine.txt")

	src := makeTree(t)
	want := fsiotest.HostTree(t, src)
	host := t.TempDir()
	// wsTree downloads a workspace directory with GNU tar as the extractor.
	wsTree := func(p string) map[string]fsiotest.Node {
		t.Helper()
		archive := mustDesk(t, nil, "fs", "-w", "demo", "export", "-q", "-C", p)
		out := t.TempDir()
		cmd := exec.Command("tar", "-xpf", "-", "-C", out)
		cmd.Stdin = strings.NewReader(archive)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("tar -x: %v\n%s", err, b)
		}
		return fsiotest.HostTree(t, out)
	}

	// Host → workspace.
	t.Run("dir into an existing directory", func(t *testing.T) {
		mustProc(t, host, nil, "cp", src, "demo:/workspace/")
		sameTree(t, "demo:/workspace/src", want, wsTree("/workspace/src"))
	})
	t.Run("dir to a new name, relative workspace path", func(t *testing.T) {
		mustProc(t, host, nil, "cp", src, "demo:copy")
		sameTree(t, "demo:/workspace/copy", want, wsTree("/workspace/copy"))
	})
	t.Run("contents merged into an existing directory", func(t *testing.T) {
		before := wsTree("/workspace/existing")
		mustProc(t, host, nil, "cp", src+"/.", "demo:/workspace/existing")
		got := wsTree("/workspace/existing")
		if got["mine.txt"] != before["mine.txt"] {
			t.Errorf("mine.txt changed: %+v → %+v", before["mine.txt"], got["mine.txt"])
		}
		if got["."].Perm != before["."].Perm {
			t.Errorf("the destination's mode changed: %+v → %+v", before["."], got["."])
		}
		delete(got, "mine.txt")
		w := map[string]fsiotest.Node{}
		for k, v := range want {
			w[k] = v
		}
		w["."] = got["."]
		sameTree(t, "contents into existing", w, got)
	})
	t.Run("file into a directory, onto a new name, over a file", func(t *testing.T) {
		f := filepath.Join(src, "run.sh")
		mustProc(t, host, nil, "cp", f, "demo:/workspace/existing/")
		mustProc(t, host, nil, "cp", f, "demo:/workspace/existing/renamed.sh")
		mustProc(t, host, nil, "cp", filepath.Join(src, "go.mod"), "demo:/workspace/existing/mine.txt")
		got := wsTree("/workspace/existing")
		for name, from := range map[string]string{"run.sh": "run.sh", "renamed.sh": "run.sh", "mine.txt": "go.mod"} {
			w := want[from]
			w.Links = ""
			if g := got[name]; g != w {
				t.Errorf("%s: want %+v, got %+v", name, w, g)
			}
		}
	})
	t.Run("symlink as a symlink, -L as its target", func(t *testing.T) {
		mustProc(t, host, nil, "cp", filepath.Join(src, "readme"), "demo:/workspace/link")
		mustProc(t, host, nil, "cp", "-L", filepath.Join(src, "readme"), "demo:/workspace/followed")
		fi := mustDesk(t, nil, "fs", "-w", "demo", "stat", "/workspace/link")
		if !strings.Contains(fi, "symbolic link") {
			t.Errorf("link: %s", fi)
		}
		if b := mustDesk(t, nil, "fs", "-w", "demo", "cat", "/workspace/followed"); b != strings.Repeat("lorem ipsum\n", 5000) {
			t.Errorf("followed: %d bytes", len(b))
		}
	})
	t.Run("tar on standard input", func(t *testing.T) {
		archive, err := exec.Command("tar", "--format=pax", "-cf", "-", "-C", src, ".").Output()
		if err != nil {
			t.Fatal(err)
		}
		mustDesk(t, nil, "fs", "-w", "demo", "mkdir", "/workspace/fromtar")
		mustProc(t, host, archive, "cp", "-", "demo:/workspace/fromtar")
		sameTree(t, "tar on stdin", want, wsTree("/workspace/fromtar"))
	})

	// Workspace → host.
	t.Run("dir to a new host directory", func(t *testing.T) {
		mustProc(t, host, nil, "cp", "demo:/workspace/src", "out")
		sameTree(t, "./out", want, fsiotest.HostTree(t, filepath.Join(host, "out")))
	})
	t.Run("dir into an existing host directory", func(t *testing.T) {
		if err := os.Mkdir(filepath.Join(host, "into"), 0o755); err != nil {
			t.Fatal(err)
		}
		mustProc(t, host, nil, "cp", "demo:/workspace/src", "into")
		sameTree(t, "./into/src", want, fsiotest.HostTree(t, filepath.Join(host, "into", "src")))
	})
	t.Run("contents merged into a host directory", func(t *testing.T) {
		dst := filepath.Join(host, "merge")
		os.Mkdir(dst, 0o700)
		os.WriteFile(filepath.Join(dst, "own.txt"), []byte("own"), 0o600)
		mustProc(t, host, nil, "cp", "demo:/workspace/src/.", "merge")
		got := fsiotest.HostTree(t, dst)
		if got["."].Perm != 0o700 {
			t.Errorf("the destination's mode changed to %o", got["."].Perm)
		}
		if _, ok := got["own.txt"]; !ok {
			t.Errorf("own.txt is gone")
		}
		delete(got, "own.txt")
		delete(got, ".")
		w := map[string]fsiotest.Node{}
		for k, v := range want {
			if k != "." {
				w[k] = v
			}
		}
		sameTree(t, "merge", w, got)
	})
	t.Run("file to the current directory and to a name", func(t *testing.T) {
		mustProc(t, host, nil, "cp", "demo:/workspace/src/run.sh", ".")
		mustProc(t, host, nil, "cp", "demo:/workspace/src/run.sh", "other.sh")
		os.WriteFile(filepath.Join(host, "over.txt"), []byte("to be replaced"), 0o600)
		mustProc(t, host, nil, "cp", "demo:/workspace/src/go.mod", "over.txt")
		got := fsiotest.HostTree(t, host)
		for name, from := range map[string]string{"run.sh": "run.sh", "other.sh": "run.sh", "over.txt": "go.mod"} {
			w := want[from]
			w.Links = ""
			if g := got[name]; g != w {
				t.Errorf("%s: want %+v, got %+v", name, w, g)
			}
		}
		if ents, _ := filepath.Glob(filepath.Join(host, ".desk-*")); len(ents) != 0 {
			t.Errorf("staging left behind: %v", ents)
		}
	})
	t.Run("symlink as a symlink", func(t *testing.T) {
		mustProc(t, host, nil, "cp", "demo:/workspace/src/readme", "readme-link")
		if target, err := os.Readlink(filepath.Join(host, "readme-link")); err != nil || target != "README.md" {
			t.Errorf("readme-link: %q, %v", target, err)
		}
		if g, w := fsiotest.HostTree(t, host)["readme-link"], want["readme"]; g != w {
			t.Errorf("readme-link: want %+v, got %+v", w, g)
		}
	})
	t.Run("tar on standard output", func(t *testing.T) {
		out := mustProc(t, host, nil, "cp", "demo:/workspace/src", "-")
		tr := tar.NewReader(strings.NewReader(out))
		n := 0
		for {
			_, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != len(want) {
			t.Errorf("%d entries on stdout, want %d", n, len(want))
		}
	})

	// Refused, changing nothing.
	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"both host", []string{"cp", "a", "b"}, 2, "must be WS:PATH"},
		{"both workspace", []string{"cp", "demo:a", "demo:b"}, 2, "between workspaces"},
		{"bad workspace name", []string{"cp", "a", "Bad Name:x"}, 2, "colon"},
		{"dir onto a file", []string{"cp", src, "demo:/workspace/src/go.mod"}, 1, "ENOTDIR"},
		{"file to a missing directory", []string{"cp", filepath.Join(src, "go.mod"), "demo:/workspace/nope/"}, 1, "ENOENT"},
		{"missing parent", []string{"cp", filepath.Join(src, "go.mod"), "demo:/workspace/nope/x"}, 1, "parent directory does not exist"},
		{"missing source", []string{"cp", "demo:/workspace/nope", "x"}, 1, "ENOENT"},
		{"host dir onto a host file", []string{"cp", "demo:/workspace/src", "over.txt"}, 1, "ENOTDIR"},
		{"file with a trailing slash", []string{"cp", "demo:/workspace/src/go.mod/", "x"}, 1, "ENOTDIR"},
		{"no such workspace", []string{"cp", src, "ghost:/x"}, 1, "not_found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := fsiotest.HostTree(t, host)
			_, errs, code := deskProc(t, host, nil, c.args...)
			if code != c.code || !strings.Contains(errs, c.msg) {
				t.Errorf("exit %d, stderr %q; want %d mentioning %q", code, errs, c.code, c.msg)
			}
			sameTree(t, "host after a refused copy", before, fsiotest.HostTree(t, host))
		})
	}
	sameTree(t, "demo:/workspace/src after all", want, wsTree("/workspace/src"))
}

// openPTY opens a pseudo-terminal pair: the test reads the master, the
// child writes to the slave.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// TestCp_Progress: desk cp reports progress on standard error when it is a
// terminal (one line rewritten in place, cleared at the end, then a
// summary), and prints nothing when it is not. The copy reads a tar from a
// pipe the test feeds: the test waits for the first progress line before
// it sends the rest, so the line is seen while the copy runs.
func TestCp_Progress(t *testing.T) {
	demoDeskProcess(t, "cp-progress-admin-token-0123456789ab")
	mustDesk(t, nil, "fs", "-w", "demo", "mkdir", "-p", "/workspace/a", "/workspace/b")
	archive, err := exec.Command("tar", "--format=pax", "-cf", "-", "-C", makeTree(t), ".").Output()
	if err != nil {
		t.Fatal(err)
	}

	master, slave := openPTY(t)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "cp", "-", "demo:/workspace/a")
	cmd.Env = append(os.Environ(), envTestRunDesk+"=1")
	cmd.Stderr = slave
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	slave.Close()
	seen := make(chan string, 64)
	go func() {
		defer close(seen)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			if n > 0 {
				seen <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	half := len(archive) / 2
	if _, err := stdin.Write(archive[:half]); err != nil {
		t.Fatal(err)
	}
	var screen strings.Builder
	deadline := time.After(time.Minute)
	for !strings.Contains(screen.String(), "\r\x1b[Kdesk cp: ") {
		select {
		case s, ok := <-seen:
			if !ok {
				t.Fatalf("the terminal closed before a progress line: %q", screen.String())
			}
			screen.WriteString(s)
		case <-deadline:
			t.Fatalf("no progress line in a minute (hang guard): %q", screen.String())
		}
	}
	stdin.Write(archive[half:])
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("desk cp: %v; terminal: %q", err, screen.String())
	}
	for s := range seen {
		screen.WriteString(s)
	}
	if !strings.Contains(screen.String(), "\r\x1b[K") || strings.Contains(screen.String(), "error") {
		t.Errorf("terminal output %q", screen.String())
	}

	// Not a terminal: nothing on standard error.
	if _, errs, code := deskProc(t, t.TempDir(), archive, "cp", "-", "demo:/workspace/b"); code != 0 || errs != "" {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errs)
	}
}

// TestFS_RemoteImportExport: desk fs -w import and export go through the
// tree endpoints of a real desk serve: a host directory, a .tgz and a .zip
// in, tar, tgz and zip out, each checked against the host tree.
func TestFS_RemoteImportExport(t *testing.T) {
	demoDeskProcess(t, "fs-remote-admin-token-0123456789abc")
	src := makeTree(t)
	want := fsiotest.HostTree(t, src)
	dir := t.TempDir()

	_, errs, code := deskProc(t, dir, nil, "fs", "-w", "demo", "import", "-C", "/proj", src)
	if code != 0 || !strings.Contains(errs, "desk fs import: 5 files, 7 directories, 2 symlinks, 1 hard links;") || !strings.HasSuffix(errs, " into /proj\n") {
		t.Fatalf("import: exit %d: %q", code, errs)
	}
	tarball := mustProc(t, dir, nil, "fs", "-w", "demo", "export", "-q", "-C", "/proj")
	compareWithHost(t, src, []byte(tarball))

	for _, name := range []string{"copy.tgz", "copy.zip"} {
		mustProc(t, dir, nil, "fs", "-w", "demo", "export", "-q", "-C", "/proj", "-o", name)
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if magic := map[string]string{"copy.tgz": "\x1f\x8b", "copy.zip": "PK\x03\x04"}[name]; !strings.HasPrefix(string(data), magic) {
			t.Errorf("%s does not begin with %q", name, magic)
		}
		dest := "/from-" + name
		mustProc(t, dir, nil, "fs", "-w", "demo", "import", "-q", "-C", dest, name)
		back := t.TempDir()
		mustProc(t, back, nil, "cp", "demo:"+dest+"/.", ".")
		got := fsiotest.HostTree(t, back)
		w := want
		if name == "copy.zip" {
			w = map[string]fsiotest.Node{}
			for k, n := range want {
				n.Mtime = n.Mtime / 100 * 100 // a zip keeps times to 100 ns
				w[k] = n
			}
			for k, n := range got {
				n.Mtime = n.Mtime / 100 * 100
				got[k] = n
			}
		}
		delete(got, ".") // cp's "/." keeps the host directory's own attributes
		w2 := map[string]fsiotest.Node{}
		for k, n := range w {
			if k != "." {
				w2[k] = n
			}
		}
		sameTree(t, name, w2, got)
	}
	// A tar's device file is imported as one (issue 21), unless --skip-special.
	var dev bytes.Buffer
	tw := tar.NewWriter(&dev)
	tw.WriteHeader(&tar.Header{Name: "null", Typeflag: tar.TypeChar, Mode: 0o666, Devmajor: 1, Devminor: 3})
	tw.Close()
	if _, errs, code := deskProc(t, dir, dev.Bytes(), "fs", "-w", "demo", "import", "-C", "/dev", "-"); code != 0 || !strings.Contains(errs, "1 special files") {
		t.Errorf("device: exit %d, %q", code, errs)
	}
	if _, errs, code := deskProc(t, dir, dev.Bytes(), "fs", "-w", "demo", "import", "--skip-special", "-C", "/dev", "-"); code != 0 || !strings.Contains(errs, "warning: skipped \"null\"") {
		t.Errorf("device with --skip-special: exit %d, %q", code, errs)
	}
}
