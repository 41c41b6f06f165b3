package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/workspace"
)

// newSandbox returns the sandbox backend of a data directory, or nil and why there
// is none. runtime is the --sandbox flag: an OCI runtime, or "off". Each
// sandbox's /workspace is the backend's own FUSE mount of the workspace's
// store (its /workspace directory), so every backend sees the same files at
// the same paths.
//
// sub, if set, moves the sandbox's directories below sandboxDir (a worker's
// own, per workspace).
func newSandbox(runtime, dataDir string, sub func(string) string, lim backendLimits, log *slog.Logger) (*sandbox.Backend, error) {
	if err := sandboxUsable(runtime); err != nil {
		return nil, err
	}
	dir, err := sandboxDir(dataDir)
	if err != nil {
		return nil, err
	}
	if sub != nil {
		dir = sub(dir)
	}
	return sandbox.New(sandbox.Options{
		Deny:         sandboxDeny(dataDir),
		Image:        sandboxImages(""),
		Runtime:      runtime,
		RuntimeRoot:  filepath.Join(dir, "runc"),
		StateDir:     filepath.Join(dir, "state"),
		MaxSandboxes: lim.maxSandboxes,
		Slots:        lim.slots,
		Logger:       log,
	})
}

// sandboxDeny is the sandbox's deny list: sandbox.DefaultDeny() plus the
// server's own data directory and its config file (desk/ of the user's
// config directory, or the file $DESK_CONFIG names), both by their
// absolute and their resolved paths, so that a server whose data
// lives below the host paths a sandbox sees (/var/lib/x, /opt/x) does not
// show it.
func sandboxDeny(dataDir string) []string {
	deny := sandbox.DefaultDeny()
	var dirs []string
	if abs, err := filepath.Abs(dataDir); err == nil {
		dirs = append(dirs, abs)
	}
	if cfg, err := configPath(); err == nil {
		if abs, err := filepath.Abs(cfg); err == nil {
			if os.Getenv(envConfig) == "" {
				abs = filepath.Dir(abs)
			}
			dirs = append(dirs, abs)
		}
	}
	for _, d := range dirs {
		deny = append(deny, globEscape(d))
		if r, err := filepath.EvalSymlinks(d); err == nil && r != d {
			deny = append(deny, globEscape(r))
		}
	}
	return deny
}

// globEscape quotes the path.Match metacharacters of p.
func globEscape(p string) string {
	var b []byte
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, p[i])
	}
	return string(b)
}

// sandboxUsable says why this host cannot run the sandbox backend with
// runtime (the --sandbox flag), or nil.
func sandboxUsable(runtime string) error {
	if runtime == "off" {
		return errors.New("turned off (--sandbox off)")
	}
	if err := sandbox.Available(runtime); err != nil {
		return err
	}
	return sandbox.MountAvailable()
}

// sandboxDir is the server's directory for sandbox state, one per data
// directory: /run/desk/<hash of the data directory's path>. It is outside the
// data directory because the sandbox's root (an unprivileged uid) must reach
// the bundles, and the data directory is private.
func sandboxDir(dataDir string) (string, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", fmt.Errorf("find sandbox directory: %w", err)
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join("/run/desk", hex.EncodeToString(sum[:6])), nil
}

// closeSandbox stops every sandbox and removes the server's sandbox
// directory (sandboxDir) when nothing is left in it. Only empty directories
// are removed: whatever remains (a mount that could not be detached) stays
// for the next server to clean up.
func closeSandbox(sb *sandbox.Backend, log *slog.Logger) {
	if err := sb.Close(); err != nil {
		log.Warn("closing the sandbox backend", "err", err)
	}
	o := sb.Options()
	for _, d := range []string{o.MountDir, o.StateDir, o.RuntimeRoot, filepath.Dir(o.StateDir)} {
		os.Remove(d)
	}
}

// stopSandboxOnClose is the workspace's Attach: when the host closes (or
// hibernates) a workspace, its executions are stopped and recorded first,
// then its sandbox is stopped.
func stopSandboxOnClose(sb *sandbox.Backend) workspace.AttachFunc {
	return func(ctx context.Context, ws *workspace.Workspace) (io.Closer, error) {
		return closerFunc(func() error {
			ws.Runtime().Close() // idempotent: executions end as "desk server stopped"
			ctx, cancel := context.WithTimeout(context.Background(), 2*sb.Options().StopTimeout)
			defer cancel()
			return sb.Stop(ctx, ws.Name())
		}), nil
	}
}

// closerFunc is a function as an io.Closer.
type closerFunc func() error

// Close calls f.
func (f closerFunc) Close() error { return f() }
