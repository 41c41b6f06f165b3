package main

import (
	"flag"
	"path"
)

var fsMv = &fsVerb{
	name:     "mv",
	synopsis: "[-n] SRC DST",
	summary:  "rename SRC to DST atomically, or move it into DST if that is a directory",
	write:    true,
	minArgs:  2,
	maxArgs:  2,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		noClobber := fl.Bool("n", false, "fail (EEXIST) rather than replace an existing DST")
		return func(c *fsCmd, args []string) error {
			src, dst := wsPath(args[0]), wsPath(args[1])
			fsys, err := c.files()
			if err != nil {
				return err
			}
			if fi, err := fsys.Stat(c.ctx, dst); err == nil && fi.IsDir() && src != dst {
				dst = path.Join(dst, path.Base(src))
			}
			return fsys.Rename(c.ctx, src, dst, *noClobber)
		}
	},
}
