package main

import "flag"

var fsMkdir = &fsVerb{
	name:     "mkdir",
	synopsis: "[-p] PATH...",
	summary:  "create directories (mode 0755)",
	write:    true,
	minArgs:  1,
	maxArgs:  -1,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		parents := fl.Bool("p", false, "create missing parents; an existing directory is not an error")
		return func(c *fsCmd, args []string) error {
			return c.eachPath(args, func(fsys fileStore, _ int, p string) error {
				return fsys.Mkdir(c.ctx, p, 0o755, *parents)
			})
		}
	},
}
