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
			fsys, err := c.files()
			if err != nil {
				return err
			}
			for _, arg := range args {
				p := wsPath(arg)
				if err := fsys.Mkdir(c.ctx, p, 0o755, *parents); err != nil {
					return err
				}
			}
			return nil
		}
	},
}
