package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/wspath"
)

var fsExport = &fsVerb{
	name:     "export",
	synopsis: "[-C SRC] [-o FILE] [--format tar|tgz|zip] [-q|--progress]",
	summary:  "write the workspace directory SRC (default /workspace) as an archive (PAX tar by default) to standard output or FILE; a file SRC gives an archive of one entry",
	minArgs:  0,
	maxArgs:  0,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		src := fl.String("C", wspath.Dir, "workspace `SRC` directory to export (a relative one: from /workspace)")
		out := fl.String("o", "", "write the archive to the host `FILE` (its format from its name: .tgz or .tar.gz, .zip, else tar) instead of standard output")
		format := fl.String("format", "", "the archive `format`: tar, tgz or zip (default: from -o's name, else tar)")
		quiet := fl.Bool("q", false, "no progress or summary on standard error")
		always := fl.Bool("progress", false, "report progress once a second even when standard error is not a terminal")
		return func(c *fsCmd, args []string) error {
			f, err := exportFormat(*format, *out)
			if err != nil {
				return usagef("%v", err)
			}
			pr := newProgress(c.errw, "desk fs export", progressModeOf(*quiet, *always))
			defer pr.done()
			start := time.Now()
			var sum fsio.Summary
			if *out == "" || *out == "-" {
				if isTerminal(c.rawOut) {
					return errors.New("refusing to write an archive to a terminal; use -o FILE or redirect standard output")
				}
				sum, err = c.export(wsPath(*src), c.out, f, pr)
			} else {
				sum, err = c.exportFile(wsPath(*src), *out, f, pr)
			}
			pr.done()
			if err != nil {
				return err
			}
			if sum.Elapsed == 0 {
				sum.Elapsed = time.Since(start)
			}
			if !*quiet {
				fmt.Fprintf(c.errw, "desk fs export: %s from %s\n", summaryLine(sum), wsPath(*src))
			}
			return nil
		}
	},
}

// exportFormat is the archive format from --format, or from the name of
// the output file.
func exportFormat(flagValue, out string) (fsio.Format, error) {
	if flagValue != "" {
		return fsio.ParseFormat(flagValue)
	}
	switch {
	case strings.HasSuffix(out, ".tgz"), strings.HasSuffix(out, ".gz"):
		return fsio.FormatTgz, nil
	case strings.HasSuffix(out, ".zip"):
		return fsio.FormatZip, nil
	}
	return fsio.FormatTar, nil
}

// export writes the archive of src to w: from the store (-db), or
// downloaded from the server's tree endpoint (-w).
func (c *fsCmd) export(src string, w io.Writer, f fsio.Format, pr *progressReporter) (fsio.Summary, error) {
	if c.ws == "" {
		fsys, err := c.store()
		if err != nil {
			return fsio.Summary{}, err
		}
		return fsio.ExportArchive(c.ctx, fsys, src, w, f, fsio.ExportOptions{Progress: pr.fn()})
	}
	cl, srv, err := c.server.client()
	if err != nil {
		return fsio.Summary{}, err
	}
	c.srv = srv
	tr, err := cl.GetTree(c.ctx, c.ws, src, client.GetTreeOptions{Format: string(f)})
	if err != nil {
		return fsio.Summary{}, err
	}
	defer tr.Close()
	if _, err := io.Copy(w, &countingIO{r: tr, p: pr}); err != nil {
		return fsio.Summary{}, fmt.Errorf("download %s: %w", src, err)
	}
	s := tr.Summary()
	return fsio.Summary{Files: s.Files, Dirs: s.Dirs, Symlinks: s.Symlinks, Hardlinks: s.Hardlinks, Bytes: s.Bytes, Xattrs: s.Xattrs}, nil
}

// exportFile writes the archive to a temporary file next to name and renames
// it into place once complete, so a failed export leaves no partial archive.
func (c *fsCmd) exportFile(src, name string, f fsio.Format, pr *progressReporter) (fsio.Summary, error) {
	if c.ws == "" {
		if _, err := c.store(); err != nil {
			return fsio.Summary{}, err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".desk-export-*")
	if err != nil {
		return fsio.Summary{}, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	sum, err := c.export(src, tmp, f, pr)
	if err != nil {
		return sum, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return sum, err
	}
	if err := tmp.Close(); err != nil {
		return sum, err
	}
	return sum, os.Rename(tmp.Name(), name)
}
