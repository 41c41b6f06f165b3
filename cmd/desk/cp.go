package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/workspace"
)

var cpSpec = &cmdSpec{
	name:     "cp",
	synopsis: "[-L] [-a] [-q] SRC DEST",
	summary:  "copy files or trees between the host and a workspace, either way, as docker cp does",
	help: `One of SRC and DEST is WS:PATH, a path in workspace WS (a relative PATH, or
none, is taken from /workspace); the other is a host path, or - for a tar
archive on standard input (SRC) or output (DEST). A host path with a colon
must begin with / or ./ to be read as one.

  desk cp ./src demo:/workspace/        the directory src into /workspace/src
  desk cp ./src/. demo:app              the contents of src into /workspace/app
  desk cp demo:/workspace/out.pdf .     the file into the current directory

The rules are docker cp's. SRC a file: DEST a directory receives it under
its own name; DEST a file (or a missing path whose parent exists) is
replaced (created); a DEST ending in / must be an existing directory. SRC a
directory: a missing DEST is created as its copy; an existing directory
DEST receives it under its own name, or, with SRC ending in /., its
contents (merged: files replaced, directories merged); a file DEST is an
error; a directory the copy would replace with a file is an error too,
while a file it has as a directory is replaced. Modes (setuid, setgid,
sticky included), times, symlinks and hard links within the copy are
kept; extended attributes (user.*) where both sides have them; owners
with -a only. A symlink SRC is copied as a symlink
unless -L, or unless SRC ends with /. Each copy is all or nothing: the
workspace side is written through one tree upload, the host side through a
staging directory renamed into place. Progress is shown on standard error
when it is a terminal.`,
	minArgs: 2, maxArgs: 2,
}

// cpEnd is one side of a copy: a host path, a workspace path, or a stream.
type cpEnd struct {
	ws     string // the workspace; "" for the host
	path   string // host path, or clean absolute workspace path
	raw    string // as given
	stream bool   // "-"
}

// contents reports whether the path ends with "/." (copy a directory's
// contents), and trailing whether it ends with "/" (or "/.": it must be a
// directory, and a symlink is followed).
func (e cpEnd) contents() bool { return e.raw == "." || strings.HasSuffix(e.raw, "/.") }
func (e cpEnd) trailing() bool { return strings.HasSuffix(e.raw, "/") || e.contents() }

// parseCpArg reads a cp argument: WS:PATH for a workspace, else a host path.
func parseCpArg(arg string) (cpEnd, error) {
	if arg == "-" {
		return cpEnd{stream: true, raw: arg}, nil
	}
	if !strings.HasPrefix(arg, "/") && !strings.HasPrefix(arg, "./") && !strings.HasPrefix(arg, "../") {
		if ws, p, ok := strings.Cut(arg, ":"); ok && !strings.Contains(ws, "/") {
			if err := workspace.ValidateName(ws); err != nil {
				return cpEnd{}, usagef("%q: %v (a host path with a colon must begin with / or ./)", arg, err)
			}
			return cpEnd{ws: ws, path: cpWSPath(p), raw: p}, nil
		}
	}
	return cpEnd{path: arg, raw: arg}, nil
}

// cpWSPath resolves a workspace path of cp: a relative one (or none) from
// /workspace, where the sandbox works.
func cpWSPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		p = "/workspace/" + p
	}
	return path.Clean(p)
}

func runCp(ctx context.Context, args []string, st streams) int {
	sp := cpSpec
	fl := sp.flags()
	sf := addServerFlags(fl)
	follow := fl.Bool("L", false, "follow a symlink SRC: copy what it points to")
	owners := fl.Bool("a", false, "archive mode: keep the uid and gid of what is copied (root only, on the host side)")
	quiet := fl.Bool("q", false, "no progress or summary on standard error")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	src, err := parseCpArg(pos[0])
	if err != nil {
		return sp.usageError(st, fl, err)
	}
	dst, err := parseCpArg(pos[1])
	if err != nil {
		return sp.usageError(st, fl, err)
	}
	switch {
	case src.stream && dst.stream:
		return sp.usageError(st, fl, usagef("SRC and DEST cannot both be -"))
	case (src.ws == "") == (dst.ws == ""):
		if src.ws != "" {
			return sp.usageError(st, fl, usagef("copying between workspaces is not supported: copy to the host first"))
		}
		return sp.usageError(st, fl, usagef("one of SRC and DEST must be WS:PATH (a path in a workspace)"))
	}
	mode := progressAuto
	if *quiet {
		mode = progressNever
	}
	cp := &copier{ctx: ctx, st: st, follow: *follow, owners: *owners, quiet: *quiet, pr: newProgress(st.err, "desk cp", mode)}
	return sp.remote(st, sf, func(c *client.Client) error {
		cp.c = c
		defer cp.pr.done()
		start := time.Now()
		var err error
		if dst.ws != "" {
			err = cp.up(src, dst)
		} else {
			err = cp.down(src, dst)
		}
		cp.pr.done()
		if err == nil && !*quiet && isTerminal(st.err) && !src.stream && !dst.stream {
			fmt.Fprintf(st.err, "desk cp: %s to %s (%s)\n", cp.summary, pos[1], time.Since(start).Round(time.Millisecond))
		}
		return err
	})
}

// copier runs one desk cp.
type copier struct {
	ctx     context.Context
	c       *client.Client
	st      streams
	follow  bool
	owners  bool
	quiet   bool
	pr      *progressReporter
	summary string // what was copied, for the final line
}

func (cp *copier) warn(msg string) {
	cp.pr.done()
	fmt.Fprintf(cp.st.err, "desk cp: warning: %s\n", msg)
}

func cpErr(p string, errno syscall.Errno, format string, args ...any) error {
	return &fs.PathError{Op: "cp", Path: p, Err: fmt.Errorf(format+": %w", append(args, errno)...)}
}

// cpPlace is where docker cp's rules put a source (cpRule).
type cpPlace int

const (
	cpAt       cpPlace = iota // at DEST itself, whose parent must exist
	cpInto                    // inside the existing directory DEST, under the source's name
	cpContents                // a directory's contents (SRC/.) into the existing directory DEST
)

// cpRule applies docker cp's rules, the same both ways, to a source that is
// a directory or not (srcDir) and the destination dst (dstExists, dstDir:
// what it is now): a directory goes inside an existing directory, or its
// contents into it with SRC/., or becomes DEST, but never onto a file; a
// file goes inside an existing directory or onto DEST, which a trailing
// slash says must be an existing directory.
func cpRule(srcDir, dstExists, dstDir bool, src, dst cpEnd) (cpPlace, error) {
	if srcDir {
		switch {
		case dstExists && !dstDir:
			return 0, cpErr(dst.raw, syscall.ENOTDIR, "cannot copy a directory onto a file")
		case dstExists && src.contents():
			return cpContents, nil
		case dstExists:
			return cpInto, nil
		}
		return cpAt, nil
	}
	switch {
	case dstExists && dstDir:
		return cpInto, nil
	case dstExists && dst.trailing():
		return 0, cpErr(dst.raw, syscall.ENOTDIR, "not a directory")
	case !dstExists && dst.trailing():
		return 0, cpErr(dst.raw, syscall.ENOENT, "the destination directory does not exist")
	}
	return cpAt, nil
}

// up copies the host path (or standard input's tar) src into the workspace.
func (cp *copier) up(src, dst cpEnd) error {
	rs := &remoteStore{c: cp.c, ws: dst.ws}
	di, derr := rs.Stat(cp.ctx, dst.path)
	switch {
	case derr == nil:
	case client.ErrorCode(derr) == "ENOENT":
	default:
		return derr
	}
	dstExists := derr == nil
	to := client.TreeOptions{Owners: cp.owners, Format: client.FormatTar}
	if src.stream {
		if !dstExists || !di.IsDir() {
			return cpErr(dst.raw, syscall.ENOTDIR, "the destination of a tar stream must be an existing directory")
		}
		if isTerminal(cp.st.in) {
			return errors.New("standard input is a terminal; pipe a tar archive in")
		}
		to.Format = ""
		ts, err := cp.c.PutTree(cp.ctx, dst.ws, dst.path, &countingIO{r: cp.st.in, p: cp.pr}, to)
		cp.report(ts)
		return err
	}
	si, err := cp.hostStat(src)
	if err != nil {
		return err
	}
	base := filepath.Base(filepath.Clean(src.path))
	if abs, err := filepath.Abs(src.path); err == nil {
		base = filepath.Base(abs)
	}
	hostPath := src.path
	if cp.follow || src.trailing() {
		if hostPath, err = filepath.EvalSymlinks(src.path); err != nil {
			return err
		}
	}
	eo := fsio.ExportOptions{Progress: cp.pr.fn(), Warn: cp.warn}
	if !si.IsDir() && src.trailing() {
		return cpErr(src.raw, syscall.ENOTDIR, "not a directory")
	}
	place, err := cpRule(si.IsDir(), dstExists, dstExists && di.IsDir(), src, dst)
	if err != nil {
		return err
	}
	if place == cpAt {
		if err := cp.wsParentDir(rs, dst); err != nil {
			return err
		}
	}
	var target string
	switch {
	case place == cpContents:
		target, eo.OmitRoot = dst.path, true
	case place == cpInto && si.IsDir():
		target = path.Join(dst.path, base)
	case place == cpInto:
		target, eo.Name = dst.path, base
	case si.IsDir():
		target = dst.path
	default:
		target, eo.Name = path.Dir(dst.path), path.Base(dst.path)
	}
	ts, err := uploadHost(cp.ctx, cp.c, dst.ws, hostPath, target, eo, to)
	cp.report(ts)
	return err
}

// report records what a tree upload copied.
func (cp *copier) report(ts client.TreeSummary) {
	for _, w := range ts.Warnings {
		cp.warn(w)
	}
	cp.summary = summaryLine(fsio.Summary{Files: ts.Files, Dirs: ts.Dirs, Symlinks: ts.Symlinks, Hardlinks: ts.Hardlinks, Special: ts.Special, Bytes: ts.Bytes, Xattrs: ts.Xattrs, Skipped: ts.Skipped})
	if i := strings.LastIndex(cp.summary, ";"); i >= 0 {
		cp.summary = cp.summary[:i] + ", " + humanBytes(ts.Bytes)
	}
}

// hostStat describes a host SRC: lstat, unless it is followed (-L, or a
// trailing slash).
func (cp *copier) hostStat(src cpEnd) (os.FileInfo, error) {
	if cp.follow || src.trailing() {
		return os.Stat(src.path)
	}
	return os.Lstat(src.path)
}

// wsParentDir checks that the parent of a missing workspace DEST is a
// directory, as docker cp does: cp creates DEST, not its parents.
func (cp *copier) wsParentDir(rs *remoteStore, dst cpEnd) error {
	parent := path.Dir(dst.path)
	fi, err := rs.Stat(cp.ctx, parent)
	if client.ErrorCode(err) == "ENOENT" {
		return cpErr(dst.ws+":"+parent, syscall.ENOENT, "the destination's parent directory does not exist")
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return cpErr(dst.ws+":"+parent, syscall.ENOTDIR, "the destination's parent is not a directory")
	}
	return nil
}

// uploadHost archives the host path hostPath on the fly (fsio.ArchiveHost,
// a PAX tar) and streams it into the workspace directory dest.
func uploadHost(ctx context.Context, cl *client.Client, ws, hostPath, dest string, eo fsio.ExportOptions, to client.TreeOptions) (client.TreeSummary, error) {
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		_, err := fsio.ArchiveHost(ctx, hostPath, pw, fsio.FormatTar, eo)
		pw.CloseWithError(err) // nil: the reader sees EOF
		errc <- err
	}()
	to.Format = client.FormatTar
	ts, err := cl.PutTree(ctx, ws, dest, pr, to)
	pr.CloseWithError(io.ErrClosedPipe) // the request is over: stop the archiver
	if aerr := <-errc; aerr != nil && !errors.Is(aerr, io.ErrClosedPipe) {
		return ts, aerr // reading the host failed: that, not the cut-short request
	}
	return ts, err
}

// down copies the workspace path src to the host path (or standard
// output's tar) dst.
func (cp *copier) down(src, dst cpEnd) error {
	rs := &remoteStore{c: cp.c, ws: src.ws}
	var si fileInfo
	var err error
	if cp.follow || src.trailing() {
		si, err = rs.Stat(cp.ctx, src.path)
	} else {
		si, err = rs.Lstat(cp.ctx, src.path)
	}
	if err != nil {
		return err
	}
	if dst.stream {
		if isTerminal(cp.st.out) {
			return errors.New("refusing to write a tar archive to a terminal; redirect standard output")
		}
		return cp.download(src, cp.st.out)
	}
	if !si.IsDir() && src.trailing() {
		return cpErr(src.ws+":"+src.raw, syscall.ENOTDIR, "not a directory")
	}
	di, derr := os.Stat(dst.path)
	if derr != nil && !errors.Is(derr, fs.ErrNotExist) {
		return derr
	}
	dstExists := derr == nil
	base := path.Base(src.path)
	opts := fsio.ImportOptions{Owners: cp.owners, Warn: cp.warn, Progress: cp.pr.fn()}
	place, err := cpRule(si.IsDir(), dstExists, dstExists && di.IsDir(), src, dst)
	if err != nil {
		return err
	}
	if place == cpAt {
		if err := hostParentDir(dst.path); err != nil {
			return err
		}
	}
	target := dst.path
	if place == cpInto {
		target = filepath.Join(dst.path, base)
	}
	if si.IsDir() {
		opts.KeepDestAttrs = place == cpContents
		return cp.extract(src, target, opts)
	}
	// A file or a symlink: into a directory DEST under its own name, else
	// onto DEST itself.
	if ti, err := os.Lstat(target); err == nil && ti.IsDir() {
		return cpErr(target, syscall.EISDIR, "cannot replace a directory with a non-directory")
	}
	// Extract the one-entry archive into a staging directory beside the
	// target, then rename the entry onto the target.
	stage, err := os.MkdirTemp(filepath.Dir(target), ".desk-cp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if err := cp.extract(src, stage, opts); err != nil {
		return err
	}
	return os.Rename(filepath.Join(stage, base), target)
}

// getOptions are the tree download's options for src: a symlink is
// followed only with -L or a trailing slash.
func (cp *copier) getOptions(src cpEnd) client.GetTreeOptions {
	return client.GetTreeOptions{Format: client.FormatTar, NoFollow: !cp.follow && !src.trailing()}
}

// download writes the archive of src to w.
func (cp *copier) download(src cpEnd, w io.Writer) error {
	tr, err := cp.c.GetTree(cp.ctx, src.ws, src.path, cp.getOptions(src))
	if err != nil {
		return err
	}
	defer tr.Close()
	if _, err := io.Copy(w, &countingIO{r: tr, p: cp.pr}); err != nil {
		return fmt.Errorf("download %s:%s: %w", src.ws, src.path, err)
	}
	return nil
}

// extract downloads src as a tar and extracts it into the host directory
// dest (created if missing, merged into if it exists).
func (cp *copier) extract(src cpEnd, dest string, opts fsio.ImportOptions) error {
	tr, err := cp.c.GetTree(cp.ctx, src.ws, src.path, cp.getOptions(src))
	if err != nil {
		return err
	}
	defer tr.Close()
	sum, err := fsio.ExtractHost(cp.ctx, tr, dest, opts)
	if err != nil {
		return err
	}
	cp.summary = summaryLine(sum)
	if i := strings.LastIndex(cp.summary, ";"); i >= 0 {
		cp.summary = cp.summary[:i] + ", " + humanBytes(sum.Bytes)
	}
	return nil
}

// hostParentDir checks that the parent of a missing host DEST is a
// directory.
func hostParentDir(p string) error {
	parent := filepath.Dir(filepath.Clean(p))
	fi, err := os.Stat(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return cpErr(parent, syscall.ENOENT, "the destination's parent directory does not exist")
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return cpErr(parent, syscall.ENOTDIR, "the destination's parent is not a directory")
	}
	return nil
}
