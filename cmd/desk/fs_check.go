package main

import (
	"flag"
	"fmt"
)

var fsCheck = &fsVerb{
	name:     "check",
	synopsis: "",
	summary:  "verify every invariant of the store (exit 1, listing the problems, if any fails)",
	local:    true,
	minArgs:  0,
	maxArgs:  0,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		return func(c *fsCmd, args []string) error {
			fsys, err := c.store()
			if err != nil {
				return err
			}
			rep, err := fsys.Check(c.ctx)
			if err != nil {
				return err
			}
			if rep.OK() {
				fmt.Fprintf(c.out, "%s: ok\n", c.dbPath)
				return nil
			}
			for _, p := range rep.Problems {
				fmt.Fprintln(c.out, p)
			}
			return fmt.Errorf("%s: %d problems found", c.dbPath, len(rep.Problems))
		}
	},
}
