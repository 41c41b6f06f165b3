package main

import (
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/desk-dev/desk/internal/fsio"
)

var fsExport = &fsVerb{
	name:     "export",
	synopsis: "[-C SRC] [-o FILE] [-q]",
	summary:  "write the workspace directory SRC (default /) as a PAX tar archive to standard output or FILE",
	local:    true,
	minArgs:  0,
	maxArgs:  0,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		src := fl.String("C", "/", "workspace `SRC` directory to export")
		out := fl.String("o", "", "write the archive to the host `FILE` (gzip-compressed if it ends in .gz or .tgz) instead of standard output")
		quiet := fl.Bool("q", false, "no progress or summary on standard error")
		return func(c *fsCmd, args []string) error {
			opts := fsio.ExportOptions{}
			if !*quiet {
				opts.Progress = c.progressPrinter()
			}
			var (
				sum fsio.Summary
				err error
			)
			if *out == "" || *out == "-" {
				if isTerminal(c.rawOut) {
					return errors.New("refusing to write a tar archive to a terminal; use -o FILE or redirect standard output")
				}
				fsys, err := c.store()
				if err != nil {
					return err
				}
				sum, err = fsio.ExportTar(c.ctx, fsys, wsPath(*src), c.out, opts)
				if err != nil {
					return err
				}
			} else if sum, err = c.exportFile(wsPath(*src), *out, opts); err != nil {
				return err
			}
			if !*quiet {
				fmt.Fprintf(c.errw, "desk fs export: %s from %s\n", summaryLine(sum), wsPath(*src))
			}
			return nil
		}
	},
}

// exportFile writes the archive to a temporary file next to name and renames
// it into place once complete, so a failed export leaves no partial archive.
func (c *fsCmd) exportFile(src, name string, opts fsio.ExportOptions) (fsio.Summary, error) {
	fsys, err := c.store()
	if err != nil {
		return fsio.Summary{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".desk-export-*")
	if err != nil {
		return fsio.Summary{}, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	var w io.Writer = tmp
	var zw *gzip.Writer
	if strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".tgz") {
		zw = gzip.NewWriter(tmp)
		w = zw
	}
	sum, err := fsio.ExportTar(c.ctx, fsys, src, w, opts)
	if err != nil {
		return sum, err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return sum, err
		}
	}
	if err := tmp.Chmod(0o644); err != nil {
		return sum, err
	}
	if err := tmp.Close(); err != nil {
		return sum, err
	}
	return sum, os.Rename(tmp.Name(), name)
}
