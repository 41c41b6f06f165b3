package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/wspath"
)

var fsImport = &fsVerb{
	name:     "import",
	synopsis: "[-C DEST] [-q|--progress] [--skip-special] SRC",
	summary:  "copy a host directory, or an archive (a tar, .tar.gz or .zip file, or - for standard input), into DEST",
	write:    true,
	minArgs:  1,
	maxArgs:  1,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		dest := fl.String("C", wspath.Dir, "workspace `DEST`ination directory (a relative one: from /workspace); created if missing, merged into if it exists")
		quiet := fl.Bool("q", false, "no progress or summary on standard error")
		always := fl.Bool("progress", false, "report progress once a second even when standard error is not a terminal")
		skipSpecial := fl.Bool("skip-special", false, "skip an archive's device files and FIFOs (with a warning) instead of refusing it")
		return func(c *fsCmd, args []string) error {
			src := args[0]
			pr := newProgress(c.errw, "desk fs import", progressModeOf(*quiet, *always))
			defer pr.done()
			opts := fsio.ImportOptions{
				Owners:      os.Geteuid() == 0,
				SkipSpecial: *skipSpecial,
				Warn:        func(msg string) { pr.done(); fmt.Fprintf(c.errw, "desk fs import: warning: %s\n", msg) },
				Progress:    pr.fn(),
			}
			var in io.Reader
			isDir := false
			switch {
			case src == "-":
				if isTerminal(c.in) {
					return errors.New("standard input is a terminal; pipe an archive in (tar -cf - DIR | desk fs ... import -)")
				}
				in = c.in
			default:
				fi, serr := os.Stat(src)
				if errors.Is(serr, fs.ErrNotExist) {
					return fmt.Errorf("source %s does not exist", src)
				}
				if serr != nil {
					return serr
				}
				if fi.IsDir() {
					isDir = true
				} else {
					f, err := os.Open(src)
					if err != nil {
						return err
					}
					defer f.Close()
					in = f
				}
			}
			start := time.Now()
			var (
				sum fsio.Summary
				err error
			)
			switch {
			case c.ws != "":
				sum, err = c.importRemote(src, isDir, in, wsPath(*dest), opts, pr)
			case isDir:
				sum, err = c.importDir(src, wsPath(*dest), opts)
			default:
				var fsys = c.fsys
				if fsys, err = c.store(); err == nil {
					sum, err = fsio.ImportArchive(c.ctx, fsys, in, wsPath(*dest), opts)
				}
			}
			pr.done()
			if err != nil {
				if !isDir {
					name := src
					if src == "-" {
						name = "standard input"
					}
					return fmt.Errorf("%s: %w", name, err)
				}
				return err
			}
			if sum.Elapsed == 0 {
				sum.Elapsed = time.Since(start)
			}
			if !*quiet {
				fmt.Fprintf(c.errw, "desk fs import: %s into %s\n", summaryLine(sum), wsPath(*dest))
			}
			return nil
		}
	},
}

// progressModeOf turns -q and --progress into a mode.
func progressModeOf(quiet, always bool) progressMode {
	switch {
	case quiet:
		return progressNever
	case always:
		return progressAlways
	}
	return progressAuto
}

// importRemote streams an archive to the server's tree endpoint: the host
// directory src archived on the fly (ArchiveHost), or the archive in.
func (c *fsCmd) importRemote(src string, isDir bool, in io.Reader, dest string, opts fsio.ImportOptions, pr *progressReporter) (fsio.Summary, error) {
	cl, srv, err := c.server.client()
	if err != nil {
		return fsio.Summary{}, err
	}
	c.srv = srv
	to := client.TreeOptions{Owners: opts.Owners, SkipSpecial: opts.SkipSpecial}
	var ts client.TreeSummary
	if isDir {
		root, err := filepath.EvalSymlinks(src) // a symlink to a directory is followed, as -db does
		if err != nil {
			return fsio.Summary{}, err
		}
		ts, err = uploadHost(c.ctx, cl, c.ws, root, dest, fsio.ExportOptions{Progress: opts.Progress, Warn: opts.Warn}, to)
		if err != nil {
			return fsio.Summary{}, err
		}
	} else {
		ts, err = cl.PutTree(c.ctx, c.ws, dest, &countingIO{r: in, p: pr}, to)
		if err != nil {
			return fsio.Summary{}, err
		}
	}
	for _, w := range ts.Warnings {
		opts.Warn(w)
	}
	return fsio.Summary{Files: ts.Files, Dirs: ts.Dirs, Symlinks: ts.Symlinks, Hardlinks: ts.Hardlinks, Special: ts.Special, Bytes: ts.Bytes, Xattrs: ts.Xattrs, Skipped: ts.Skipped}, nil
}

// importDir imports a host directory, leaving out the workspace's own database
// files should they lie inside it.
func (c *fsCmd) importDir(src, dest string, opts fsio.ImportOptions) (fsio.Summary, error) {
	fsys, err := c.store()
	if err != nil {
		return fsio.Summary{}, err
	}
	var own []os.FileInfo
	for _, suffix := range []string{"", "-wal", "-shm", "-journal", vfs.ChunkFileSuffix} {
		if fi, err := os.Stat(c.dbPath + suffix); err == nil {
			own = append(own, fi)
		}
	}
	opts.Exclude = func(hostPath string, info fs.FileInfo) bool {
		for _, fi := range own {
			if os.SameFile(fi, info) {
				fmt.Fprintf(c.errw, "desk fs import: skipping %s: it is the workspace database itself\n", hostPath)
				return true
			}
		}
		return false
	}
	return fsio.ImportDir(c.ctx, fsys, src, dest, opts)
}
