package image_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/image"
	"github.com/desk-dev/desk/internal/image/imagetest"
)

// TestRemove_InUse: an image a sandbox holds (Hold) is not removed with
// its last name: Remove fails with EBUSY and changes nothing; a name that
// is not the last goes at once; once released, the image goes; a Hold of
// a removed image is ErrNotFound. The hold is an flock, so another process
// holding it (flock(1) on the same file, as desk serve against desk image
// rm) counts too.
func TestRemove_InUse(t *testing.T) {
	s := open(t)
	layout := filepath.Join(t.TempDir(), "layout")
	imagetest.WriteLayout(t, layout, twoLayers(t))
	for _, n := range []string{"app:1", "app:latest"} {
		if _, err := s.Import(context.Background(), layout, n); err != nil {
			t.Fatal(err)
		}
	}
	img, err := s.Resolve("app:1")
	if err != nil {
		t.Fatal(err)
	}
	release, err := s.Hold(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("app:latest"); err != nil {
		t.Fatalf("remove a name that is not the last: %v", err)
	}
	err = s.Remove("app:1")
	if !errors.Is(err, syscall.EBUSY) || !errors.Is(err, image.ErrInUse) {
		t.Fatalf("remove of a held image: %v", err)
	}
	if got, err := s.Resolve("app:1"); err != nil || got.Root != img.Root {
		t.Fatalf("the refused remove changed the store: %v", err)
	}
	if _, err := os.Stat(filepath.Join(img.Root, "app/a")); err != nil {
		t.Fatalf("the held image's files: %v", err)
	}
	// A second hold (another sandbox) keeps it held after the first ends.
	release2, err := s.Hold(img)
	if err != nil {
		t.Fatal(err)
	}
	release()
	release() // idempotent
	if err := s.Remove("app:1"); !errors.Is(err, syscall.EBUSY) {
		t.Fatalf("remove with one hold left: %v", err)
	}
	release2()
	// Another process's hold.
	{
		cmd := exec.Command("flock", "--shared", filepath.Join(filepath.Dir(img.Root), "in-use"), "sh", "-c", "echo held; read x")
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 5)
		if _, err := stdout.Read(buf); err != nil || !strings.HasPrefix(string(buf), "held") {
			t.Fatalf("flock: %q %v", buf, err)
		}
		if err := s.Remove("app:1"); !errors.Is(err, syscall.EBUSY) {
			t.Errorf("remove held by another process: %v", err)
		}
		stdin.Close()
		cmd.Wait()
	}
	if err := s.Remove("app:1"); err != nil {
		t.Fatalf("remove once released: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(img.Root)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the image outlived its last name: %v", err)
	}
	if _, err := s.Hold(img); !errors.Is(err, image.ErrNotFound) {
		t.Errorf("hold of a removed image: %v", err)
	}
	if _, err := s.Hold(image.Image{Root: "/etc", Info: image.Info{ID: "../x"}}); err == nil {
		t.Errorf("hold of a path outside the store")
	}
}
