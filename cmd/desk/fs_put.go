package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

var fsPut = &fsVerb{
	name:     "put",
	synopsis: "DEST [SRC]",
	summary:  "write standard input (SRC omitted or -) or the host file SRC to the workspace file DEST (into DEST if it is a directory or ends in /)",
	write:    true,
	minArgs:  1,
	maxArgs:  2,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		parents := fl.Bool("p", false, "create DEST's missing parent directories (0755)")
		return func(c *fsCmd, args []string) error {
			dest := wsPath(args[0])
			intoDir := strings.HasSuffix(args[0], "/")
			src := "-"
			if len(args) == 2 {
				src = args[1]
			}
			if src == "-" {
				return c.putStdin(dest, intoDir, *parents)
			}
			f, err := os.Open(src)
			if err != nil {
				return err
			}
			defer f.Close()
			hfi, err := f.Stat()
			if err != nil {
				return err
			}
			if hfi.IsDir() {
				return fmt.Errorf("%s is a directory; use import to copy a directory tree", src)
			}
			fsys, err := c.files()
			if err != nil {
				return err
			}
			if fi, err := fsys.Stat(c.ctx, dest); intoDir || err == nil && fi.IsDir() {
				dest = path.Join(dest, filepath.Base(src))
			}
			if err := c.makeParents(fsys, dest, *parents); err != nil {
				return err
			}
			// The host file's mode, special bits included, is kept.
			mode := hfi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
			if err := fsys.WriteFile(c.ctx, dest, f, mode.Perm()); err != nil {
				return err
			}
			return fsys.Chmod(c.ctx, dest, mode)
		}
	},
}

func (c *fsCmd) putStdin(dest string, intoDir, parents bool) error {
	if isTerminal(c.in) {
		return errors.New("standard input is a terminal; pipe the content in or name a host file")
	}
	fsys, err := c.files()
	if err != nil {
		return err
	}
	if fi, err := fsys.Stat(c.ctx, dest); intoDir || err == nil && fi.IsDir() {
		// Standard input has no name to put into a directory with.
		return &fs.PathError{Op: "put", Path: dest, Err: syscall.EISDIR}
	}
	if err := c.makeParents(fsys, dest, parents); err != nil {
		return err
	}
	return fsys.WriteFile(c.ctx, dest, c.in, 0o644)
}

// makeParents makes dest's missing parent directories (0755) when asked to.
func (c *fsCmd) makeParents(fsys fileStore, dest string, parents bool) error {
	if !parents {
		return nil
	}
	return fsys.Mkdir(c.ctx, path.Dir(dest), 0o755, true)
}
