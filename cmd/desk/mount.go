package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/hostmount"
)

var mountSpec = &cmdSpec{
	name:     "mount",
	synopsis: "WS DIR [--allow-other] [--read-only]",
	summary:  "mount a workspace of a running server on a directory through FUSE, until Ctrl-C",
	help: `The server mounts the workspace on DIR, a directory of its own machine (this
one, for a server on localhost): an existing, empty directory, given without
symbolic links (a relative DIR is made absolute against the current directory
and its links resolved here), neither in the server's data directory nor below
/run/desk. Editors, file managers and any program then see the workspace's
files there; what they write is in the workspace at once, and what the API, the
tools and executions change shows through the mount at once.

desk mount prints where the workspace is mounted and waits. Ctrl-C (SIGINT) or
SIGTERM unmounts it and exits 0 once it is unmounted; so does an unmount from
outside (umount DIR, fusermount -u DIR), after saying so. When the server
stops, it unmounts first, and desk mount exits 1; so it does when the mount
cannot be made, or the server can no longer be reached (the server unmounts
when it notices the request has gone).

The mount belongs to the server's user (root), so by default only root can use
it; --allow-other lets every user in, and the kernel then checks each access
against the files' stored modes and owners, as on any filesystem (files the API
wrote belong to root: others can read them, not change them, unless their modes
say so). /etc/fuse.conf's user_allow_other does not apply: the server mounts
as root, not through fusermount. Only the admin token may mount.`,
	minArgs: 2, maxArgs: 2,
}

// mountUnmountTimeout bounds the wait for the server to unmount after an
// interrupt.
const mountUnmountTimeout = 30 * time.Second

func runMount(ctx context.Context, args []string, st streams) int {
	sp := mountSpec
	fl := sp.flags()
	sf := addServerFlags(fl)
	allowOther := fl.Bool("allow-other", false, "let users other than root use the mount (the kernel still checks modes and owners)")
	readOnly := fl.Bool("read-only", false, "mount read-only: writes through the mount fail with EROFS")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	ws, dir := pos[0], pos[1]
	if !utf8.ValidString(dir) {
		return sp.usageError(st, fl, usagef("DIR %q is not valid UTF-8", dir))
	}
	dir, err := localDir(dir)
	if err != nil {
		return sp.fail(st, err)
	}
	return sp.remote(st, sf, func(c *client.Client) error {
		return mountAndWait(ctx, c, st, ws, client.MountRequest{Dir: dir, AllowOther: *allowOther, ReadOnly: *readOnly})
	})
}

// localDir makes dir absolute against the current directory and resolves
// its symbolic links, when it exists here (the server refuses links).
func localDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", dir, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	return abs, nil
}

// mountEnd is what the mount's stream said last.
type mountEnd struct {
	ev  client.MountEvent
	err error
}

// mountAndWait mounts, reports, and waits for an interrupt (then unmounts
// and waits for the server to say so) or for the mount's end.
func mountAndWait(ctx context.Context, c *client.Client, st streams, ws string, req client.MountRequest) error {
	// The stream outlives the interrupt: it ends when the server has
	// unmounted.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	s, err := c.Mount(sctx, ws, req, client.NDJSON)
	if err != nil {
		return err
	}
	defer s.Close()
	first, err := s.Next()
	if err != nil {
		return fmt.Errorf("mount %s: %w", req.Dir, err)
	}
	if first.Type != "mounted" {
		return fmt.Errorf("mount %s: the server said %q, not \"mounted\"", req.Dir, first.Type)
	}
	mode := "read-write"
	if first.ReadOnly {
		mode = "read-only"
	}
	who := "only root can use it (--allow-other lets other users in)"
	if first.AllowOther {
		who = "every user can use it, as the files' modes and owners allow"
	}
	fmt.Fprintf(st.out, "mounted workspace %s on %s\n", ws, first.Dir)
	fmt.Fprintf(st.err, "desk mount: %s, %s; Ctrl-C unmounts\n", mode, who)

	ends := make(chan mountEnd, 1)
	go func() {
		for {
			ev, err := s.Next()
			if err != nil || ev.Type == "unmounted" {
				ends <- mountEnd{ev, err}
				return
			}
		}
	}()
	select {
	case e := <-ends:
		return mountEnded(st, first.Dir, e)
	case <-ctx.Done():
	}
	uctx, ucancel := context.WithTimeout(context.WithoutCancel(ctx), mountUnmountTimeout)
	defer ucancel()
	if err := c.Unmount(uctx, ws, first.ID); err != nil {
		return fmt.Errorf("unmount %s: %w", first.Dir, err)
	}
	select {
	case e := <-ends:
		if e.err != nil || e.ev.Error != "" {
			return mountEnded(st, first.Dir, e)
		}
	case <-uctx.Done():
		return fmt.Errorf("unmount %s: the server did not confirm within %v", first.Dir, mountUnmountTimeout)
	}
	fmt.Fprintf(st.out, "unmounted %s\n", first.Dir)
	return nil
}

// mountEnded reports the end of a mount that was not interrupted here: nil
// (exit 0) for an unmount from outside or on another's request, an error
// (exit 1) when the server ended it or went away.
func mountEnded(st streams, dir string, e mountEnd) error {
	switch {
	case e.err == nil && e.ev.Error != "":
		return fmt.Errorf("%s: %s; unmounting failed: %s", dir, e.ev.Message, e.ev.Error)
	case e.err == nil && e.ev.Reason == "outside":
		fmt.Fprintf(st.err, "desk mount: %s: %s\n", dir, e.ev.Message)
		return nil
	case e.err == nil:
		fmt.Fprintf(st.out, "unmounted %s (%s)\n", dir, e.ev.Message)
		return nil
	case client.ErrorCode(e.err) != "":
		return e.err // the server's own words: it is stopping, and has unmounted
	case errors.Is(e.err, io.EOF) || errors.Is(e.err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the mount's stream ended without an event (the workspace's worker may have died): the server detaches %s", dir)
	}
	return fmt.Errorf("lost the server (%v); it unmounts %s when it notices", e.err, dir)
}

// mountOptions are the local mounts' API options of a server on dataDir:
// no mount point below /run/desk, records of live mounts in
// /run/desk/HASH/mounts.
func mountOptions(dataDir string) (api.MountOptions, error) {
	sd, err := sandboxDir(dataDir)
	if err != nil {
		return api.MountOptions{}, err
	}
	return api.MountOptions{
		Forbidden: []hostmount.Forbidden{{Path: filepath.Dir(sd), What: "desk's run-time directory"}},
		RecordDir: filepath.Join(sd, "mounts"),
	}, nil
}

// cleanMounts detaches the mounts recorded in recordDir by processes that
// died: of workspace ws, or of every workspace when ws is "".
func cleanMounts(recordDir, ws string, log *slog.Logger) {
	dirs := []string{filepath.Join(recordDir, ws)}
	if ws == "" {
		ents, err := os.ReadDir(recordDir)
		if err != nil {
			return
		}
		dirs = dirs[:0]
		for _, e := range ents {
			dirs = append(dirs, filepath.Join(recordDir, e.Name()))
		}
	}
	for _, d := range dirs {
		r := hostmount.Records{Dir: d}
		if _, err := r.Cleanup(log); err != nil {
			log.Warn("cannot detach a mount left by a process that died", "err", err)
		}
	}
	os.Remove(recordDir) // only if empty
}
