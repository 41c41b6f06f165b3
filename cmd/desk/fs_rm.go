package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"syscall"
)

var fsRm = &fsVerb{
	name:     "rm",
	synopsis: "[-r] PATH...",
	summary:  "remove files and symlinks, or whole directory trees with -r",
	write:    true,
	minArgs:  1,
	maxArgs:  -1,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		recursive := fl.Bool("r", false, "remove directories and their contents")
		return func(c *fsCmd, args []string) error {
			for _, arg := range args {
				if wsPath(arg) == "/" {
					return errors.New("refusing to remove the workspace root /")
				}
			}
			return c.eachPath(args, func(fsys fileStore, _ int, p string) error {
				fi, err := fsys.Lstat(c.ctx, p)
				switch {
				case err != nil:
					return err
				case *recursive:
					return fsys.Remove(c.ctx, p, true)
				case fi.IsDir():
					return fmt.Errorf("%w; use -r to remove a directory", &fs.PathError{Op: "remove", Path: p, Err: syscall.EISDIR})
				}
				return fsys.Remove(c.ctx, p, false)
			})
		}
	},
}
