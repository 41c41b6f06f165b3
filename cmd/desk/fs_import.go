package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"

	"github.com/desk-dev/desk/internal/fsio"
)

var fsImport = &fsVerb{
	name:     "import",
	synopsis: "[-C DEST] [-q] SRC",
	summary:  "copy a host directory, or a tar archive (a .tar/.tar.gz file, or - for standard input), into DEST",
	write:    true,
	local:    true,
	minArgs:  1,
	maxArgs:  1,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		dest := fl.String("C", "/", "workspace `DEST`ination directory; created if missing, merged into if it exists")
		quiet := fl.Bool("q", false, "no progress or summary on standard error")
		return func(c *fsCmd, args []string) error {
			src := args[0]
			opts := fsio.ImportOptions{
				Owners: os.Geteuid() == 0,
				Warn:   func(msg string) { fmt.Fprintf(c.errw, "desk fs import: warning: %s\n", msg) },
			}
			if !*quiet {
				opts.Progress = c.progressPrinter()
			}
			var (
				sum fsio.Summary
				err error
			)
			switch {
			case src == "-":
				if isTerminal(c.in) {
					return errors.New("standard input is a terminal; pipe a tar archive in (tar -cf - DIR | desk fs ... import -)")
				}
				fsys, err := c.store()
				if err != nil {
					return err
				}
				sum, err = fsio.ImportTar(c.ctx, fsys, c.in, wsPath(*dest), opts)
				if err != nil {
					return fmt.Errorf("standard input: %w", err)
				}
			default:
				fi, serr := os.Stat(src)
				if errors.Is(serr, fs.ErrNotExist) {
					return fmt.Errorf("source %s does not exist", src)
				}
				if serr != nil {
					return serr
				}
				if fi.IsDir() {
					sum, err = c.importDir(src, wsPath(*dest), opts)
				} else {
					sum, err = c.importTarFile(src, wsPath(*dest), opts)
				}
				if err != nil {
					return err
				}
			}
			if !*quiet {
				fmt.Fprintf(c.errw, "desk fs import: %s into %s\n", summaryLine(sum), wsPath(*dest))
			}
			return nil
		}
	},
}

// importDir imports a host directory, leaving out the workspace's own database
// files should they lie inside it.
func (c *fsCmd) importDir(src, dest string, opts fsio.ImportOptions) (fsio.Summary, error) {
	fsys, err := c.store()
	if err != nil {
		return fsio.Summary{}, err
	}
	var own []os.FileInfo
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
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

// importTarFile imports a tar archive from a host file.
func (c *fsCmd) importTarFile(src, dest string, opts fsio.ImportOptions) (fsio.Summary, error) {
	f, err := os.Open(src)
	if err != nil {
		return fsio.Summary{}, err
	}
	defer f.Close()
	fsys, err := c.store()
	if err != nil {
		return fsio.Summary{}, err
	}
	sum, err := fsio.ImportTar(c.ctx, fsys, f, dest, opts)
	if err != nil {
		return sum, fmt.Errorf("%s: %w", src, err)
	}
	return sum, nil
}
