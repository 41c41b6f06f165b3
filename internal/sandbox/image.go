package sandbox

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	securejoin "github.com/cyphar/filepath-securejoin"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// Image is a root filesystem a workspace's sandbox uses instead of the
// host's userland: an OCI image unpacked on the host (package image), bound
// read-only as the sandbox's root and shared by every sandbox that uses it.
type Image struct {
	// Root is the unpacked root directory. It must hold the mount points a
	// sandbox needs (/workspace, /tmp, /proc, /dev, /.desk/init, the home,
	// /etc/hostname, /etc/hosts), and its directories must let host uid
	// HostID pass (package image makes both so).
	Root string
	// Env ("K=V") is the image config's environment: it replaces the
	// sandbox's default PATH and adds to its base; an execution's own
	// variables still win.
	Env []string
	// WorkingDir is where an execution that asks for the default working
	// directory (run.DefaultCwd) starts; empty: run.DefaultCwd.
	WorkingDir string
	// UID and GID run every program (the image config's User); 0: root.
	UID, GID uint32
	// Shell runs the source (Shell -c SOURCE; default Options.Shell).
	Shell string
	// ID identifies the image's content (package image's sha256-HEX): a
	// writable root records it and refuses another image's.
	ID string
	// Writable makes the sandbox's root writable: an overlay over Root
	// whose changes persist in the workspace's store (Options.LayerDir;
	// see the package documentation), so that apt-get or pip install into
	// /usr keeps its files across restarts. Off, the root is read-only.
	Writable bool
	// Release, if not nil, is called once when the sandbox that asked
	// for the image no longer uses it: when it has stopped (its mounts
	// released), or at once when its start is refused. Package image's
	// Store.Hold gives it, so that the image is not removed under a
	// running sandbox.
	Release func()
}

// ImageFunc returns the image workspace ws's sandbox uses, or nil for the
// host's userland. It is called when a sandbox starts.
type ImageFunc func(ctx context.Context, ws Workspace) (*Image, error)

// resolveImage asks Options.Image for the workspace's image and checks it.
func (x *box) resolveImage(ctx context.Context) error {
	o := &x.b.opts
	if o.Image == nil {
		return nil
	}
	img, err := o.Image(ctx, x.ws)
	if err != nil {
		return fmt.Errorf("find the workspace's image: %w", err)
	}
	if img == nil {
		return nil
	}
	ok := false
	defer func() {
		if !ok && img.Release != nil {
			img.Release()
		}
	}()
	if img.UID >= o.IDCount || img.GID >= o.IDCount {
		return fmt.Errorf("image user %d:%d outside the sandbox's ids", img.UID, img.GID)
	}
	for _, d := range []string{"workspace", "tmp", "proc", "dev", ".desk", strings.TrimPrefix(o.Home, "/")} {
		if fi, err := os.Stat(filepath.Join(img.Root, d)); err != nil || !fi.IsDir() {
			return fmt.Errorf("image root %s: /%s is not a directory (the sandbox mounts it)", img.Root, d)
		}
	}
	if err := x.b.interp.check(o.InitPath, img.Root); err != nil {
		return err
	}
	if img.Writable {
		if x.ws.FS == nil {
			return errors.New("a writable root needs the workspace's store")
		}
		if err := checkLayer(ctx, o, x.ws.FS, img.ID); err != nil {
			return err
		}
		x.ws.Lower = img.Root
	}
	x.img = img
	x.ws.UID, x.ws.GID = img.UID, img.GID
	ok = true
	return nil
}

// initInterp is what the init binary needs of an image: its ELF
// interpreter (the dynamic loader; "" for a static binary), read once.
type initInterp struct {
	once sync.Once
	path string
	err  error
}

// check refuses an image root that lacks the interpreter of the init at
// initPath: a dynamically linked desk (built with cgo) cannot start in an
// image without a C library like the host's, and says so here rather than
// as the runtime's "no such file or directory" on exec.
func (ii *initInterp) check(initPath, root string) error {
	ii.once.Do(func() {
		f, err := elf.Open(initPath)
		if err != nil {
			ii.err = fmt.Errorf("read the init binary %s: %w", initPath, err)
			return
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type != elf.PT_INTERP {
				continue
			}
			b, err := io.ReadAll(io.LimitReader(p.Open(), 4096))
			if err != nil {
				ii.err = fmt.Errorf("read the init binary %s: %w", initPath, err)
				return
			}
			ii.path = strings.TrimRight(string(b), "\x00")
		}
	})
	if ii.err != nil || ii.path == "" {
		return ii.err
	}
	p, err := securejoin.SecureJoin(root, ii.path)
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		return fmt.Errorf("the image has no %s, the dynamic loader the init %s needs: run images without a C library like the host's with a static desk (CGO_ENABLED=0, as make build does)", ii.path, initPath)
	}
	return nil
}

// shell is the program that runs sources: the image's, else Options.Shell.
func (x *box) shell() string {
	if x.img != nil && x.img.Shell != "" {
		return x.img.Shell
	}
	return x.b.opts.Shell
}

// cwd is where an execution asking for dir starts: the image's WorkingDir
// for the default one.
func (x *box) cwd(dir string) string {
	if x.img != nil && x.img.WorkingDir != "" && (dir == run.DefaultCwd || dir == "") {
		return x.img.WorkingDir
	}
	return dir
}

// user is the Start's user: the image's, nil for root.
func (x *box) user() *wire.User {
	if x.img == nil || (x.img.UID == 0 && x.img.GID == 0) {
		return nil
	}
	return &wire.User{UID: x.img.UID, GID: x.img.GID}
}

// imageEnv puts the image's environment into m (the sandbox's base).
func (x *box) imageEnv(m map[string]string) {
	if x.img == nil {
		return
	}
	delete(m, "NPM_CONFIG_PREFIX")
	delete(m, "PIP_BREAK_SYSTEM_PACKAGES")
	m["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	if x.img.UID != 0 {
		m["USER"], m["LOGNAME"] = fmt.Sprint(x.img.UID), fmt.Sprint(x.img.UID)
	}
	for _, kv := range x.img.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
}
