package main

import (
	"flag"
	"io"
	"io/fs"
	"syscall"
)

var fsCat = &fsVerb{
	name:     "cat",
	synopsis: "PATH...",
	summary:  "write files to standard output",
	minArgs:  1,
	maxArgs:  -1,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		return func(c *fsCmd, args []string) error {
			return c.eachPath(args, func(fsys fileStore, _ int, p string) error {
				fi, err := fsys.Stat(c.ctx, p)
				if err != nil {
					return err
				}
				if fi.IsDir() {
					return &fs.PathError{Op: "cat", Path: p, Err: syscall.EISDIR}
				}
				f, err := fsys.Open(c.ctx, p)
				if err != nil {
					return err
				}
				_, err = io.Copy(c.out, f)
				f.Close()
				return err
			})
		}
	},
}
