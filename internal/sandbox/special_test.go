package sandbox

import (
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// TestFUSE_FIFOAndSocket uses a FIFO and a UNIX socket made in the workspace
// between two processes of the sandbox: the kernel pipes and connects, the
// store keeps the inodes (issue 21).
func TestFUSE_FIFOAndSocket(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	// A FIFO: one process writes 100,000 lines, another counts them. The
	// reader's open waits for the writer's, whichever comes first.
	out := e.ok(`mkfifo -m 0640 p && stat -c '%F %a' p && { seq 1 100000 > p & } && cat p | sha256sum && wait && seq 1 100000 | sha256sum`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || lines[0] != "fifo 640" || lines[1] != lines[2] {
		t.Errorf("FIFO in the sandbox:\n%s", out)
	}
	fi, err := e.fs.Lstat(ctx(t), "/workspace/p")
	if err != nil {
		t.Fatal(err)
	}
	if a := fi.Attr(); a.Mode != vfs.S_IFIFO|0o640 || a.Size != 0 {
		t.Errorf("the store's FIFO: mode %#o size %d", a.Mode, a.Size)
	}
	// A UNIX socket: a server binds it and says so through a FIFO, a client
	// connects by path and gets its line back in upper case.
	e.put("/workspace/server.py", `import os, socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("sock")
s.listen(1)
with open("ready", "w") as r:
    r.write("listening\n")
c, _ = s.accept()
c.sendall(c.recv(100).upper())
c.close()
`)
	e.put("/workspace/client.py", `import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("sock")
s.sendall(b"through the workspace\n")
print(s.recv(100).decode(), end="")
`)
	out = e.ok(`mkfifo ready && { python3 server.py & } && read line < ready && echo "$line" && stat -c '%F' sock && python3 client.py && wait`)
	if out != "listening\nsocket\nTHROUGH THE WORKSPACE\n" {
		t.Errorf("socket in the sandbox:\n%s", out)
	}
	fi, err = e.fs.Lstat(ctx(t), "/workspace/sock")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Attr().Mode&vfs.S_IFMT != vfs.S_IFSOCK {
		t.Errorf("the store's socket: mode %#o", fi.Attr().Mode)
	}
	e.check()
}

// TestFUSE_PathMaxFromWorkspace: a path of PATH_MAX−1 bytes relative to
// /workspace (4,106 bytes from the store's root) can be made, written and
// read in the sandbox and by the store's path API; PATH_MAX bytes is the
// kernel's own ENAMETOOLONG (issue 21).
func TestFUSE_PathMaxFromWorkspace(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	// 16 directories of 254 bytes and a file: 16×255 + 15 = 4,095 bytes.
	dir := strings.Repeat(strings.Repeat("d", 254)+"/", 16)
	p := dir + strings.Repeat("f", 15)
	if len(p) != 4095 {
		t.Fatalf("built %d bytes", len(p))
	}
	out := e.ok(`cd /workspace && mkdir -p "` + dir + `" && echo deep > "` + p + `" && cat "` + p + `" && { { echo no > "` + p + `x"; } 2>&1 || true; }`)
	if !strings.HasPrefix(out, "deep\n") || !strings.Contains(out, "File name too long") {
		t.Errorf("in the sandbox:\n%s", out)
	}
	if got := e.get("/workspace/" + p); got != "deep\n" {
		t.Errorf("the store's /workspace/%s...: %q", p[:10], got)
	}
	e.check()
}
