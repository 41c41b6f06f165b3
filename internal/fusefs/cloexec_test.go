package fusefs_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestMountDescriptorCloseOnExec checks that a mount leaves no descriptor a
// program started afterwards inherits: the server's /dev/fuse descriptor is
// close-on-exec (go-fuse's own direct mount opens it without O_CLOEXEC, and
// a runc that inherited it kept a dead server's connection alive), and a
// child process holds no /dev/fuse descriptor.
//
// Descriptors the test process inherited are not its doing and are left out.
func TestMountDescriptorCloseOnExec(t *testing.T) {
	inherited := openFDs(t)
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	if err := os.WriteFile(e.path("f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fuseFDs := 0
	for fd, target := range openFDs(t) {
		if fd <= 2 || inherited[fd] == target {
			continue
		}
		flags, ok := fdFlags(t, fd)
		if !ok {
			continue
		}
		if target == "/dev/fuse" {
			fuseFDs++
		}
		if flags&0o2000000 == 0 { // O_CLOEXEC, as fdinfo reports it
			t.Errorf("descriptor %d (%s) is not close-on-exec: flags %#o", fd, target, flags)
		}
	}
	if fuseFDs == 0 {
		t.Fatal("found no /dev/fuse descriptor of the mount: the check checked nothing")
	}
	out, err := exec.Command("bash", "-c", `for f in /proc/$$/fd/*; do readlink "$f" || true; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "/dev/fuse") {
		t.Errorf("a child process inherited a /dev/fuse descriptor; its descriptors:\n%s", out)
	}
}

// openFDs returns this process's open descriptors and what they refer to.
func openFDs(t *testing.T) map[int]string {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	fds := map[int]string{}
	for _, de := range ents {
		fd, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", de.Name())); err == nil {
			fds[fd] = target // else closed meanwhile (the ReadDir's own descriptor)
		}
	}
	return fds
}

// fdFlags reads the open flags of this process's descriptor fd from
// /proc/self/fdinfo (false if it is closed meanwhile).
func fdFlags(t *testing.T, fd int) (int64, bool) {
	f, err := os.Open("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "flags:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			if err != nil {
				t.Fatalf("fdinfo %d: %q", fd, sc.Text())
			}
			return n, true
		}
	}
	return 0, false
}
