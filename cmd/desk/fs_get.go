package main

import (
	"flag"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
)

var fsGet = &fsVerb{
	name:     "get",
	synopsis: "SRC [DEST]",
	summary:  "copy the workspace file SRC to standard output (DEST omitted or -) or to the host file DEST",
	minArgs:  1,
	maxArgs:  2,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		return func(c *fsCmd, args []string) error {
			src := wsPath(args[0])
			fsys, err := c.files()
			if err != nil {
				return err
			}
			fi, err := fsys.Stat(c.ctx, src)
			if err != nil {
				return err
			}
			if fi.IsDir() {
				return &fs.PathError{Op: "get", Path: src, Err: syscall.EISDIR}
			}
			f, err := fsys.Open(c.ctx, src)
			if err != nil {
				return err
			}
			defer f.Close()
			if len(args) == 1 || args[1] == "-" {
				_, err := io.Copy(c.out, f)
				return err
			}
			dest := args[1]
			if hfi, err := os.Stat(dest); err == nil && hfi.IsDir() {
				dest = filepath.Join(dest, path.Base(src))
			}
			// Write a temporary file next to dest and rename it into place, so
			// that a failed copy never leaves a truncated dest. Setuid and setgid
			// bits are not given to host files.
			tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".desk-get-*")
			if err != nil {
				return err
			}
			defer os.Remove(tmp.Name())
			if _, err := io.Copy(tmp, f); err != nil {
				tmp.Close()
				return err
			}
			if err := tmp.Chmod(fs.FileMode(fi.Mode).Perm()); err != nil {
				tmp.Close()
				return err
			}
			if err := tmp.Close(); err != nil {
				return err
			}
			return os.Rename(tmp.Name(), dest)
		}
	},
}
